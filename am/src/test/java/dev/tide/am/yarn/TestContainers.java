package dev.tide.am.yarn;

import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;

/** Builds YARN records for tests: containers of one application on named hosts. */
final class TestContainers {
  static final ApplicationId APP = ApplicationId.newInstance(1_700_000_000_000L, 1);
  static final ApplicationAttemptId ATTEMPT = ApplicationAttemptId.newInstance(APP, 1);
  static final Priority PRIORITY = Priority.newInstance(1);

  private long nextId = 2;

  Container container(String host, Resource resource) {
    ContainerId id = ContainerId.newContainerId(ATTEMPT, nextId++);
    return Container.newInstance(id, NodeId.newInstance(host, 45454), host + ":8042", resource,
        PRIORITY, null);
  }

  static ContainerStatus completed(Container container, int exitStatus, String diagnostics) {
    return ContainerStatus.newInstance(container.getId(), ContainerState.COMPLETE, diagnostics,
        exitStatus);
  }

  static ContainerStatus released(Container container) {
    return completed(container, ContainerExitStatus.ABORTED, "Container released by application");
  }

  private TestContainers() {}

  static TestContainers create() {
    return new TestContainers();
  }
}
