package dev.bosun.web.model;

import dev.bosun.web.v1alpha1.WebServiceSpec;
import dev.bosun.web.v1alpha1.webservicespec.SecurityContext;

/** The security context a WebService spec asks for. */
public final class SecurityContexts {

  private SecurityContexts() {}

  /** The spec's, or without one the context its defaults make (safe: non-root, nothing added). */
  public static SecurityContext of(WebServiceSpec spec) {
    return spec.getSecurityContext() == null ? new SecurityContext() : spec.getSecurityContext();
  }
}
