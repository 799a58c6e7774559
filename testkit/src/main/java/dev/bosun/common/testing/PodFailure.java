package dev.bosun.common.testing;

/** Ways the {@link KubeletSimulator} can make a Pod fail, as a real kubelet would report them. */
public enum PodFailure {
  /** The image cannot be pulled: the container waits with reason ImagePullBackOff. */
  IMAGE_PULL_BACKOFF,
  /** The container keeps exiting: it waits with reason CrashLoopBackOff and restarts. */
  CRASH_LOOP_BACKOFF,
  /** The container runs but never passes its readiness probe. */
  NEVER_READY
}
