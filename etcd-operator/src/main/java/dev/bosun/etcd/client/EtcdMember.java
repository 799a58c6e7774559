package dev.bosun.etcd.client;

import java.net.URI;
import java.util.List;

/** A member as etcd's member list reports it; a learner that has not started has no name yet. */
public record EtcdMember(long id, String name, List<URI> peerUrls, boolean learner) {

  public EtcdMember {
    name = name == null ? "" : name;
    peerUrls = List.copyOf(peerUrls);
  }
}
