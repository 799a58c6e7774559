package dev.bosun.web.reconciler;

import dev.bosun.common.admission.AdmissionRules;
import dev.bosun.web.v1alpha1.WebService;
import java.util.List;

/**
 * The admission webhook's rules for WebServices: the reconciler's own {@link WebServiceValidator},
 * so a spec is refused at apply time with the message {@code InvalidSpec} would carry.
 */
public final class WebServiceAdmission implements AdmissionRules<WebService> {

  /** The route the webhook configuration sends WebService reviews to. */
  public static final String PATH = "/validate/webservices";

  @Override
  public List<String> problems(WebService object, WebService old) {
    return WebServiceValidator.problems(object);
  }
}
