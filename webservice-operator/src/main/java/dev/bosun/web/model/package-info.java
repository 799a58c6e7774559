/** Mapping the WebService spec into Kubernetes types (MapStruct) and its security defaults. */
package dev.bosun.web.model;
