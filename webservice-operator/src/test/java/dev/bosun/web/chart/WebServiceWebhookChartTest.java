package dev.bosun.web.chart;

import dev.bosun.common.testing.WebhookChartAssertions.Checked;
import dev.bosun.common.testing.WebhookChartContract;
import dev.bosun.web.reconciler.WebServiceAdmission;
import java.util.List;

/** The chart's admission webhook: on by default and wired end to end, gone when turned off. */
class WebServiceWebhookChartTest extends WebhookChartContract {

  WebServiceWebhookChartTest() {
    super(
        "bosun-bosun-webservice-operator",
        List.of(new Checked("web.bosun.dev", "v1alpha1", "webservices", WebServiceAdmission.PATH)));
  }
}
