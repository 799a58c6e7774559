package dev.bosun.config.model;

import dev.bosun.config.v1alpha1.ConfigMapSyncSpec;
import dev.bosun.config.v1alpha1.SecretSyncSpec;
import java.util.List;
import org.mapstruct.Mapper;
import org.mapstruct.Mapping;
import org.mapstruct.ValueMapping;
import org.mapstruct.factory.Mappers;

/** Maps both sync kinds' specs onto one request, and results onto each kind's status entries. */
@Mapper
public interface SyncStatusMapper {

  SyncStatusMapper INSTANCE = Mappers.getMapper(SyncStatusMapper.class);

  @Mapping(target = "sourceName", source = "source.name")
  @Mapping(target = "namespaces", source = "destinations.namespaces")
  @Mapping(target = "selector", source = "destinations.namespaceSelector")
  SyncRequest request(ConfigMapSyncSpec spec);

  @Mapping(target = "sourceName", source = "source.name")
  @Mapping(target = "namespaces", source = "destinations.namespaces")
  @Mapping(target = "selector", source = "destinations.namespaceSelector")
  SyncRequest request(SecretSyncSpec spec);

  dev.bosun.config.v1alpha1.ConfigMapSyncStatus configMapStatus(SyncStatus status);

  dev.bosun.config.v1alpha1.SecretSyncStatus secretStatus(SyncStatus status);

  dev.bosun.config.v1alpha1.configmapsyncstatus.Destinations configMapDestination(
      DestinationResult result);

  List<dev.bosun.config.v1alpha1.configmapsyncstatus.Destinations> configMapDestinations(
      List<DestinationResult> results);

  dev.bosun.config.v1alpha1.secretsyncstatus.Destinations secretDestination(
      DestinationResult result);

  List<dev.bosun.config.v1alpha1.secretsyncstatus.Destinations> secretDestinations(
      List<DestinationResult> results);

  @ValueMapping(source = "NOT_ALLOWED", target = "NOTALLOWED")
  dev.bosun.config.v1alpha1.configmapsyncstatus.Destinations.State configMapState(
      DestinationResult.State state);

  @ValueMapping(source = "NOT_ALLOWED", target = "NOTALLOWED")
  dev.bosun.config.v1alpha1.secretsyncstatus.Destinations.State secretState(
      DestinationResult.State state);
}
