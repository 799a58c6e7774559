package dev.bosun.etcd.maintenance;

import java.time.ZonedDateTime;
import java.util.List;

/**
 * The current or last defragmentation round, as the status records it.
 *
 * @param startedAt when it started (null: never)
 * @param finishedAt when its last member was done (null while it runs)
 * @param done members already defragmented in it
 */
public record DefragRound(ZonedDateTime startedAt, ZonedDateTime finishedAt, List<String> done) {

  public DefragRound {
    done = List.copyOf(done);
  }

  public static DefragRound none() {
    return new DefragRound(null, null, List.of());
  }

  public boolean running() {
    return startedAt != null && finishedAt == null;
  }
}
