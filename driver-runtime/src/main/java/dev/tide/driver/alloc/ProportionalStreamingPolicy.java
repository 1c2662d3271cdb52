package dev.tide.driver.alloc;

/** Placeholder until the proportional rule lands: keeps the initial executors. */
final class ProportionalStreamingPolicy implements StreamingAllocationPolicy {
  private final StreamingSettings settings;

  ProportionalStreamingPolicy(StreamingSettings settings) {
    this.settings = settings;
  }

  @Override
  public void batchCompleted(CompletedBatch batch) {}

  @Override
  public Decision beforeBatch(BeforeBatch state) {
    return new Decision(settings.initialExecutors(), 0, "placeholder");
  }
}
