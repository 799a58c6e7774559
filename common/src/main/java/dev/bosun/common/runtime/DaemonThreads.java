package dev.bosun.common.runtime;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Threads of an operator's servers and timers: daemons, so they never keep a stopping JVM up. */
public final class DaemonThreads {

  private DaemonThreads() {}

  /** Daemon threads named {@code <name>-1}, {@code <name>-2}, … */
  public static ThreadFactory named(String name) {
    AtomicInteger count = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
