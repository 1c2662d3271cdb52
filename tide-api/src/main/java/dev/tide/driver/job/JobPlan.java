package dev.tide.driver.job;

import java.util.ArrayList;
import java.util.List;

/**
 * A job's stages, a DAG: input stages run one {@link Mapper} task per {@link InputSplit}; shuffle
 * stages run one {@link Reducer} task per partition over the records their parent stages emitted,
 * shuffled by key (two or more parents make a join: the reducer sees each key's records of every
 * parent, told apart by {@link KeyValue#input()}). Each stage but the last feeds exactly one later
 * stage; the last stage is a shuffle stage whose reducers write the job's output files, committed
 * together when the job succeeds. Built with {@link #builder}:
 *
 * <pre>{@code
 * JobPlan.Builder plan = JobPlan.builder("wordcount");
 * JobPlan.Stage words = plan.input("words", splits, WordMapper.class);
 * JobPlan.Stage counts = plan.shuffle("counts", 4, SumReducer.class, words);  // hash partitioned
 * return plan.output(counts, "hdfs:///out");
 * }</pre>
 *
 * Only class names, split bytes and settings travel to executors; mapper and reducer classes need
 * public no-arg constructors.
 */
public final class JobPlan {
  private final String name;
  private final List<Stage> stages;
  private final String outputPath;

  /**
   * One stage. {@code id} is its position in {@link #stages()}, parents before children;
   * {@code consumer} is the stage its records are shuffled to, or -1 for the last stage.
   */
  public record Stage(int id, String name, List<InputSplit> splits, List<Integer> parents,
      int tasks, String taskClass, int consumer, Partitioning partitioning, Dataset dataset,
      byte[] spec) {
    public Stage {
      splits = List.copyOf(splits);
      parents = List.copyOf(parents);
      spec = spec.clone();
    }

    @Override
    public byte[] spec() {
      return spec.clone();
    }

    /** Reads input splits (map tasks) rather than shuffled records (reduce tasks). */
    public boolean isInput() {
      return parents.isEmpty();
    }
  }

  /**
   * Records read from splits by a {@link Mapper}, named so that several plans of one job can read
   * them: when {@link #cache cached}, each split's records are kept in the memory of the executor
   * that read them ({@code tide.cache.memory}) and later stages over the dataset run there and
   * read them from memory; a block lost with its executor (or that did not fit) is read again
   * from its split. Read by stages made with
   * {@link Builder#input(String, Dataset, Class, byte[])}.
   */
  public record Dataset(String name, List<InputSplit> splits, String mapperClass,
      boolean cached) {
    public Dataset {
      splits = List.copyOf(splits);
      if (splits.isEmpty()) {
        throw new IllegalArgumentException("dataset '" + name + "' has no input splits");
      }
    }

    public static Dataset of(String name, List<InputSplit> splits,
        Class<? extends Mapper> mapper) {
      return new Dataset(name, splits, mapper.getName(), false);
    }

    /** The same dataset, kept in executor memory once read. */
    public Dataset cache() {
      return new Dataset(name, splits, mapperClass, true);
    }
  }

  /**
   * How the records shuffled into a stage are spread over its tasks: a {@link Partitioner} class
   * and the bytes it is configured with.
   */
  public record Partitioning(String partitionerClass, byte[] spec) {
    public Partitioning {
      spec = spec.clone();
    }

    @Override
    public byte[] spec() {
      return spec.clone();
    }

    /** By key hash (the default). */
    public static Partitioning hash() {
      return new Partitioning(Partitioner.Hash.class.getName(), new byte[0]);
    }

    /** By key ranges: partition i holds keys below {@code splitPoints[i]}. */
    public static Partitioning range(List<byte[]> splitPoints) {
      return new Partitioning(RangePartitioner.class.getName(),
          RangePartitioner.spec(splitPoints));
    }

    public static Partitioning of(Class<? extends Partitioner> partitioner, byte[] spec) {
      return new Partitioning(partitioner.getName(), spec);
    }
  }

  private JobPlan(String name, List<Stage> stages, String outputPath) {
    this.name = name;
    this.stages = List.copyOf(stages);
    this.outputPath = outputPath;
  }

  public static Builder builder(String name) {
    return new Builder(name);
  }

  /**
   * The classic two-stage plan: one map task per split, a shuffle into {@code reducers}
   * partitions, one reduce task per partition writing under {@code outputPath}.
   */
  public static JobPlan mapReduce(String name, List<InputSplit> splits,
      Class<? extends Mapper> mapper, Class<? extends Reducer> reducer, int reducers,
      String outputPath) {
    Builder plan = builder(name);
    Stage map = plan.input("map", splits, mapper);
    return plan.output(plan.shuffle("reduce", reducers, reducer, map), outputPath);
  }

  public String name() {
    return name;
  }

  /** In topological order: every stage after its parents. */
  public List<Stage> stages() {
    return stages;
  }

  public Stage stage(int id) {
    return stages.get(id);
  }

  /** The stage whose reducers write the output. */
  public Stage last() {
    return stages.get(stages.size() - 1);
  }

  /** Where the last stage writes (a Hadoop FileSystem URI), or empty for no output. */
  public String outputPath() {
    return outputPath;
  }

  /** How the records a stage writes are partitioned: as its consumer asks (hash for the last). */
  public Partitioning outputPartitioning(int stageId) {
    int consumer = stages.get(stageId).consumer();
    return consumer < 0 ? Partitioning.hash() : stages.get(consumer).partitioning();
  }

  /** Partitions of the shuffle a stage writes: its consumer's tasks; 0 for the last stage. */
  public int outputPartitions(int stageId) {
    int consumer = stages.get(stageId).consumer();
    return consumer < 0 ? 0 : stages.get(consumer).tasks();
  }

  public int totalTasks() {
    int n = 0;
    for (Stage s : stages) {
      n += s.tasks();
    }
    return n;
  }

  /** Builds a plan; stages are added parents first, so a plan can hold no cycle. */
  public static final class Builder {
    private final String name;
    private final List<Stage> stages = new ArrayList<>();

    private Builder(String name) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("a job plan needs a name");
      }
      this.name = name;
    }

    /** A stage of one map task per split. */
    public Stage input(String stageName, List<InputSplit> splits,
        Class<? extends Mapper> mapper) {
      if (splits.isEmpty()) {
        throw new IllegalArgumentException("stage '" + stageName + "' of job " + name
            + " has no input splits");
      }
      return add(stageName, splits, List.of(), splits.size(), mapper.getName(),
          Partitioning.hash(), null, new byte[0]);
    }

    /**
     * A stage of one task per split of {@code data}, each running {@code mapper} over the
     * split's records, configured with {@code spec} ({@link JobContext#spec()}).
     */
    public Stage input(String stageName, Dataset data, Class<? extends RecordMapper> mapper,
        byte[] spec) {
      return add(stageName, data.splits(), List.of(), data.splits().size(), mapper.getName(),
          Partitioning.hash(), data, spec);
    }

    /**
     * A stage of {@code partitions} reduce tasks over the records of {@code parents}, shuffled
     * by key. Each parent must not already feed another stage.
     */
    public Stage shuffle(String stageName, int partitions, Class<? extends Reducer> reducer,
        Stage... parents) {
      return shuffle(stageName, partitions, reducer, Partitioning.hash(), parents);
    }

    /** As {@link #shuffle(String, int, Class, Stage...)}, partitioned as given. */
    public Stage shuffle(String stageName, int partitions, Class<? extends Reducer> reducer,
        Partitioning partitioning, Stage... parents) {
      if (partitions < 1) {
        throw new IllegalArgumentException("stage '" + stageName + "' of job " + name
            + " needs at least one partition, got " + partitions);
      }
      if (parents.length == 0) {
        throw new IllegalArgumentException("stage '" + stageName + "' of job " + name
            + " needs at least one parent stage");
      }
      int id = stages.size();
      List<Integer> parentIds = new ArrayList<>();
      for (Stage parent : parents) {
        Stage known = parent.id() < stages.size() ? stages.get(parent.id()) : null;
        if (known == null || !known.name().equals(parent.name())) {
          throw new IllegalArgumentException("stage '" + parent.name() + "' is not a stage of"
              + " job " + name);
        }
        if (known.consumer() >= 0) {
          throw new IllegalArgumentException("stage '" + known.name() + "' already feeds stage '"
              + stages.get(known.consumer()).name() + "'; a stage's records feed one stage");
        }
        parentIds.add(known.id());
      }
      for (int parentId : parentIds) {
        Stage p = stages.get(parentId);
        stages.set(parentId, new Stage(p.id(), p.name(), p.splits(), p.parents(), p.tasks(),
            p.taskClass(), id, p.partitioning(), p.dataset(), p.spec()));
      }
      return add(stageName, List.of(), parentIds, partitions, reducer.getName(), partitioning,
          null, new byte[0]);
    }

    /** Gives a stage the bytes its tasks see as {@link JobContext#spec()}; returns it anew. */
    public Stage withSpec(Stage stage, byte[] spec) {
      Stage p = stages.get(stage.id());
      Stage changed = new Stage(p.id(), p.name(), p.splits(), p.parents(), p.tasks(),
          p.taskClass(), p.consumer(), p.partitioning(), p.dataset(), spec);
      stages.set(p.id(), changed);
      return changed;
    }

    /**
     * Ends the plan: {@code last} must be a shuffle stage that feeds nothing, and every other
     * stage must feed one; its reducers write under {@code outputPath} (empty: no output).
     */
    public JobPlan output(Stage last, String outputPath) {
      if (stages.isEmpty() || last.id() != stages.size() - 1) {
        throw new IllegalArgumentException("the output stage of job " + name
            + " must be the last stage added");
      }
      if (last.isInput()) {
        throw new IllegalArgumentException("the output stage of job " + name
            + " must be a shuffle stage (reducers write the output)");
      }
      for (Stage s : stages) {
        if (s.id() != last.id() && stages.get(s.id()).consumer() < 0) {
          throw new IllegalArgumentException("stage '" + s.name() + "' of job " + name
              + " feeds no stage");
        }
      }
      return new JobPlan(name, stages, outputPath == null ? "" : outputPath);
    }

    private Stage add(String stageName, List<InputSplit> splits, List<Integer> parents,
        int tasks, String taskClass, Partitioning partitioning, Dataset dataset, byte[] spec) {
      Stage stage = new Stage(stages.size(), stageName, splits, parents, tasks, taskClass, -1,
          partitioning, dataset, spec);
      stages.add(stage);
      return stage;
    }
  }
}
