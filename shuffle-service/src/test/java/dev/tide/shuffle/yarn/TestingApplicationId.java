package dev.tide.shuffle.yarn;

import org.apache.hadoop.yarn.api.records.ApplicationId;

/** An {@link ApplicationId} without the protobuf records factory (hadoop-yarn-common). */
final class TestingApplicationId extends ApplicationId {
  private long clusterTimestamp;
  private int id;

  TestingApplicationId(long clusterTimestamp, int id) {
    this.clusterTimestamp = clusterTimestamp;
    this.id = id;
  }

  @Override
  public int getId() {
    return id;
  }

  @Override
  protected void setId(int id) {
    this.id = id;
  }

  @Override
  public long getClusterTimestamp() {
    return clusterTimestamp;
  }

  @Override
  protected void setClusterTimestamp(long clusterTimestamp) {
    this.clusterTimestamp = clusterTimestamp;
  }

  @Override
  protected void build() {}
}
