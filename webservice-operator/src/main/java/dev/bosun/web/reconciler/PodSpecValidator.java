package dev.bosun.web.reconciler;

import dev.bosun.common.meta.KubernetesNames;
import dev.bosun.common.meta.LabelSelectors;
import dev.bosun.common.meta.Labels;
import dev.bosun.web.v1alpha1.WebServiceSpec;
import dev.bosun.web.v1alpha1.webservicespec.SecurityContext;
import dev.bosun.web.v1alpha1.webservicespec.securitycontext.SeccompProfile;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.WeightedPodAffinityTerm;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rules of the Pod-level fields (volumes, scheduling, labels, security context, rolling update)
 * that the schema cannot state and the API server would otherwise refuse only when the Deployment
 * is written. Each problem is a sentence naming the field.
 */
final class PodSpecValidator {

  /** Labels Bosun sets on every Pod; the Deployment's selector depends on some of them. */
  static final Set<String> RESERVED_LABELS =
      Set.of(Labels.NAME, Labels.INSTANCE, Labels.COMPONENT, Labels.MANAGED_BY, Labels.PART_OF);

  private PodSpecValidator() {}

  static List<String> validate(WebServiceSpec spec) {
    List<String> problems = new ArrayList<>();
    volumes(spec, problems);
    keys("spec.podLabels", spec.getPodLabels(), problems);
    if (spec.getPodLabels() != null) {
      spec.getPodLabels().keySet().stream()
          .filter(RESERVED_LABELS::contains)
          .sorted()
          .forEach(
              k ->
                  problems.add(
                      "spec.podLabels: " + k + " is set by Bosun and cannot be overridden"));
    }
    keys("spec.podAnnotations", spec.getPodAnnotations(), problems);
    keys("spec.nodeSelector", spec.getNodeSelector(), problems);
    tolerations(spec.getTolerations(), problems);
    affinity(spec.getAffinity(), problems);
    spread(spec.getTopologySpreadConstraints(), problems);
    security(spec.getSecurityContext(), problems);
    rollingUpdate(spec, problems);
    return problems;
  }

  private static void volumes(WebServiceSpec spec, List<String> problems) {
    Set<String> names = new HashSet<>();
    for (Volume v : orEmpty(spec.getVolumes())) {
      names.add(v.getName());
      int sources = 0;
      for (Object source :
          new Object[] {
            v.getConfigMap(), v.getSecret(), v.getEmptyDir(), v.getPersistentVolumeClaim()
          }) {
        sources += source == null ? 0 : 1;
      }
      if (sources != 1) {
        problems.add(
            "spec.volumes["
                + v.getName()
                + "] needs exactly one of configMap, secret, emptyDir or persistentVolumeClaim");
      }
    }
    for (VolumeMount m : orEmpty(spec.getVolumeMounts())) {
      if (!names.contains(m.getName())) {
        problems.add(
            "spec.volumeMounts["
                + m.getMountPath()
                + "] mounts volume '"
                + m.getName()
                + "', which is not in spec.volumes");
      }
      if (m.getSubPath() != null && List.of(m.getSubPath().split("/")).contains("..")) {
        problems.add("spec.volumeMounts[" + m.getMountPath() + "].subPath must not contain '..'");
      }
    }
  }

  private static void keys(String field, Map<String, String> map, List<String> problems) {
    if (map == null) {
      return;
    }
    map.keySet().stream()
        .sorted()
        .forEach(k -> KubernetesNames.qualifiedName(field + " key", k).ifPresent(problems::add));
  }

  private static void tolerations(List<Toleration> tolerations, List<String> problems) {
    List<Toleration> list = orEmpty(tolerations);
    for (int i = 0; i < list.size(); i++) {
      Toleration t = list.get(i);
      String field = "spec.tolerations[" + i + "]";
      boolean exists = "Exists".equals(t.getOperator());
      if (exists && t.getValue() != null && !t.getValue().isEmpty()) {
        problems.add(field + ": operator Exists takes no value");
      }
      if ((t.getKey() == null || t.getKey().isEmpty()) && !exists) {
        problems.add(field + ": a toleration without a key needs operator Exists");
      }
      if (t.getKey() != null && !t.getKey().isEmpty()) {
        KubernetesNames.qualifiedName(field + ".key", t.getKey()).ifPresent(problems::add);
      }
      if (t.getTolerationSeconds() != null && !"NoExecute".equals(t.getEffect())) {
        problems.add(field + ": tolerationSeconds needs effect NoExecute");
      }
    }
  }

  private static void affinity(Affinity affinity, List<String> problems) {
    if (affinity == null) {
      return;
    }
    if (affinity.getNodeAffinity() != null) {
      var node = affinity.getNodeAffinity();
      if (node.getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
        List<NodeSelectorTerm> terms =
            orEmpty(
                node.getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms());
        for (int i = 0; i < terms.size(); i++) {
          nodeTerm(
              "spec.affinity.nodeAffinity.required.nodeSelectorTerms[" + i + "]",
              terms.get(i),
              problems);
        }
      }
      var preferred = orEmpty(node.getPreferredDuringSchedulingIgnoredDuringExecution());
      for (int i = 0; i < preferred.size(); i++) {
        nodeTerm(
            "spec.affinity.nodeAffinity.preferred[" + i + "].preference",
            preferred.get(i).getPreference(),
            problems);
      }
    }
    if (affinity.getPodAffinity() != null) {
      podTerms(
          "spec.affinity.podAffinity",
          affinity.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution(),
          affinity.getPodAffinity().getPreferredDuringSchedulingIgnoredDuringExecution(),
          problems);
    }
    if (affinity.getPodAntiAffinity() != null) {
      podTerms(
          "spec.affinity.podAntiAffinity",
          affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution(),
          affinity.getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution(),
          problems);
    }
  }

  private static void nodeTerm(String field, NodeSelectorTerm term, List<String> problems) {
    if (term == null) {
      return;
    }
    List<NodeSelectorRequirement> all = new ArrayList<>(orEmpty(term.getMatchExpressions()));
    all.addAll(orEmpty(term.getMatchFields()));
    for (NodeSelectorRequirement r : all) {
      int values = r.getValues() == null ? 0 : r.getValues().size();
      String op = r.getOperator();
      String what = field + " (" + r.getKey() + " " + op + ")";
      switch (op) {
        case "In", "NotIn" -> {
          if (values == 0) {
            problems.add(what + ": In and NotIn need values");
          }
        }
        case "Exists", "DoesNotExist" -> {
          if (values > 0) {
            problems.add(what + ": Exists and DoesNotExist take no values");
          }
        }
        case "Gt", "Lt" -> {
          if (values != 1 || !r.getValues().get(0).matches("-?[0-9]{1,18}")) {
            problems.add(what + ": Gt and Lt take exactly one integer value");
          }
        }
        default -> problems.add(what + ": unknown operator");
      }
    }
  }

  private static void podTerms(
      String field,
      List<PodAffinityTerm> required,
      List<WeightedPodAffinityTerm> preferred,
      List<String> problems) {
    List<PodAffinityTerm> req = orEmpty(required);
    for (int i = 0; i < req.size(); i++) {
      problems.addAll(
          LabelSelectors.problems(
              req.get(i).getLabelSelector(), field + ".required[" + i + "].labelSelector"));
    }
    List<WeightedPodAffinityTerm> pref = orEmpty(preferred);
    for (int i = 0; i < pref.size(); i++) {
      var term = pref.get(i).getPodAffinityTerm();
      if (term != null) {
        problems.addAll(
            LabelSelectors.problems(
                term.getLabelSelector(),
                field + ".preferred[" + i + "].podAffinityTerm.labelSelector"));
      }
    }
  }

  private static void spread(List<TopologySpreadConstraint> constraints, List<String> problems) {
    Set<String> seen = new HashSet<>();
    List<TopologySpreadConstraint> list = orEmpty(constraints);
    for (int i = 0; i < list.size(); i++) {
      TopologySpreadConstraint c = list.get(i);
      String field = "spec.topologySpreadConstraints[" + i + "]";
      if (!seen.add(c.getTopologyKey() + "/" + c.getWhenUnsatisfiable())) {
        problems.add(
            field
                + ": topologyKey "
                + c.getTopologyKey()
                + " with "
                + c.getWhenUnsatisfiable()
                + " is listed twice");
      }
      problems.addAll(LabelSelectors.problems(c.getLabelSelector(), field + ".labelSelector"));
    }
  }

  private static void security(SecurityContext sc, List<String> problems) {
    if (sc == null) {
      return;
    }
    if (Boolean.TRUE.equals(sc.getRunAsNonRoot())
        && sc.getRunAsUser() != null
        && sc.getRunAsUser() == 0) {
      problems.add(
          "spec.securityContext: runAsUser 0 is root; set runAsNonRoot: false to allow it");
    }
    SeccompProfile seccomp = sc.getSeccompProfile();
    if (seccomp != null) {
      boolean localhost = seccomp.getType() == SeccompProfile.Type.LOCALHOST;
      if (localhost && seccomp.getLocalhostProfile() == null) {
        problems.add("spec.securityContext.seccompProfile: type Localhost needs localhostProfile");
      } else if (!localhost && seccomp.getLocalhostProfile() != null) {
        problems.add("spec.securityContext.seccompProfile: localhostProfile needs type Localhost");
      }
    }
  }

  private static void rollingUpdate(WebServiceSpec spec, List<String> problems) {
    var ru = spec.getRollingUpdate();
    if (ru == null) {
      return;
    }
    if (isZero(ru.getMaxSurge()) && isZero(ru.getMaxUnavailable())) {
      problems.add(
          "spec.rollingUpdate: maxSurge and maxUnavailable are both 0, so no rollout could make"
              + " progress; let one of them be above 0");
    }
  }

  private static boolean isZero(IntOrString value) {
    if (value == null) {
      return false;
    }
    return value.getIntVal() != null ? value.getIntVal() == 0 : "0%".equals(value.getStrVal());
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
