/**
 * Names, labels, selectors, annotations and Secret values: the metadata helpers every operator
 * uses, with Kubernetes' own length and character rules.
 */
package dev.bosun.common.meta;
