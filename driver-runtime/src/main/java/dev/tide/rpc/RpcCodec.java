package dev.tide.rpc;

import dev.tide.rpc.RpcMessage.Heartbeat;
import dev.tide.rpc.RpcMessage.LaunchTask;
import dev.tide.rpc.RpcMessage.RegisterExecutor;
import dev.tide.rpc.RpcMessage.RegisterRejected;
import dev.tide.rpc.RpcMessage.Registered;
import dev.tide.rpc.RpcMessage.Shutdown;
import dev.tide.rpc.RpcMessage.TaskStatus;
import dev.tide.driver.job.JobPlan;
import dev.tide.rpc.MapLocation;
import dev.tide.rpc.TaskDescription;
import dev.tide.rpc.TaskOutcome;
import dev.tide.shuffle.transport.Frames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Byte layout of the driver RPC. Every frame body is {@code type:u8} then the fields below, in
 * order; strings are {@code len:i32 utf8}, byte arrays {@code len:i32 bytes}, lists
 * {@code count:i32 items}.
 * <pre>
 *   64 REGISTER_EXECUTOR  executorId:str host:str cores:i32
 *   65 REGISTERED         jobConf:bytes
 *   66 REGISTER_REJECTED  reason:str
 *   67 LAUNCH_TASK        taskId:i64 kind:u8 stageId:i32 index:i32 attempt:i32 shuffleId:i32
 *                         reducers:i32 taskClass:str split:bytes preferredHosts:list(str)
 *                         mapOutputs:list(mapId:i32 host:str port:i32) outputPath:str
 *   68 TASK_STATUS        taskId:i64 state:u8 message:str fetchHost:str fetchPort:i32
 *                         wholeServiceLost:u8 lostShuffleId:i32 lostMapIds:list(i32)
 *                         metrics:list(key:str value:i64) lossCause:str
 *   69 SHUTDOWN           reason:str
 *   70 HEARTBEAT          executorId:str runningTaskIds:list(i64)
 * </pre>
 * Malformed input raises {@link IllegalArgumentException} naming what was wrong.
 */
public final class RpcCodec {
  static final byte REGISTER_EXECUTOR = 64;
  static final byte REGISTERED = 65;
  static final byte REGISTER_REJECTED = 66;
  static final byte LAUNCH_TASK = 67;
  static final byte TASK_STATUS = 68;
  static final byte SHUTDOWN = 69;
  static final byte HEARTBEAT = 70;
  /** Strings and arrays longer than this are refused before any allocation. */
  static final int MAX_FIELD_BYTES = 64 * 1024 * 1024;

  private RpcCodec() {}

  public static ByteBuf encode(ByteBufAllocator alloc, RpcMessage message) {
    ByteBuf frame;
    if (message instanceof RegisterExecutor m) {
      frame = Frames.start(alloc, REGISTER_EXECUTOR);
      writeString(frame, m.executorId());
      writeString(frame, m.host());
      frame.writeInt(m.cores());
      frame.writeLong(m.startupMillis());
    } else if (message instanceof Registered m) {
      frame = Frames.start(alloc, REGISTERED);
      writeBytes(frame, m.jobConf());
    } else if (message instanceof RegisterRejected m) {
      frame = Frames.start(alloc, REGISTER_REJECTED);
      writeString(frame, m.reason());
    } else if (message instanceof LaunchTask m) {
      frame = Frames.start(alloc, LAUNCH_TASK);
      writeTask(frame, m.task());
    } else if (message instanceof TaskStatus m) {
      frame = Frames.start(alloc, TASK_STATUS);
      writeOutcome(frame, m.outcome());
    } else if (message instanceof Shutdown m) {
      frame = Frames.start(alloc, SHUTDOWN);
      writeString(frame, m.reason());
    } else if (message instanceof Heartbeat m) {
      frame = Frames.start(alloc, HEARTBEAT);
      writeString(frame, m.executorId());
      frame.writeInt(m.runningTaskIds().size());
      m.runningTaskIds().forEach(frame::writeLong);
    } else {
      throw new IllegalArgumentException("unknown RPC message " + message);
    }
    return Frames.finish(frame);
  }

  /** Decodes a frame body (type byte first); does not release {@code body}. */
  public static RpcMessage decode(ByteBuf body) {
    if (!body.isReadable()) {
      throw new IllegalArgumentException("empty RPC frame");
    }
    byte type = body.readByte();
    RpcMessage message = switch (type) {
      case REGISTER_EXECUTOR -> new RegisterExecutor(readString(body), readString(body),
          readInt(body), readLong(body));
      case REGISTERED -> new Registered(readBytes(body));
      case REGISTER_REJECTED -> new RegisterRejected(readString(body));
      case LAUNCH_TASK -> new LaunchTask(readTask(body));
      case TASK_STATUS -> new TaskStatus(readOutcome(body));
      case SHUTDOWN -> new Shutdown(readString(body));
      case HEARTBEAT -> new Heartbeat(readString(body), readTaskIds(body));
      default -> throw new IllegalArgumentException("unknown RPC message type " + type);
    };
    if (body.isReadable()) {
      throw new IllegalArgumentException("RPC message type " + type + " has "
          + body.readableBytes() + " trailing bytes");
    }
    return message;
  }

  private static void writeTask(ByteBuf out, TaskDescription t) {
    out.writeLong(t.taskId());
    out.writeByte(t.kind().ordinal());
    out.writeInt(t.stageId());
    out.writeInt(t.index());
    out.writeInt(t.attempt());
    writeString(out, t.taskClass());
    writeBytes(out, t.splitPayload());
    out.writeInt(t.preferredHosts().size());
    t.preferredHosts().forEach(h -> writeString(out, h));
    out.writeInt(t.inputs().size());
    for (TaskDescription.ShuffleInput input : t.inputs()) {
      out.writeInt(input.shuffleId());
      out.writeInt(input.mapOutputs().size());
      for (MapLocation l : input.mapOutputs()) {
        out.writeInt(l.mapId());
        writeString(out, l.host());
        out.writeInt(l.shufflePort());
      }
    }
    out.writeInt(t.outputPartitions());
    writeString(out, t.outputPartitioning().partitionerClass());
    writeBytes(out, t.outputPartitioning().spec());
    writeString(out, t.outputPath());
    out.writeByte(t.dataset() == null ? 0 : t.dataset().cache() ? 2 : 1);
    if (t.dataset() != null) {
      writeString(out, t.dataset().name());
      writeString(out, t.dataset().mapperClass());
    }
    writeBytes(out, t.spec());
  }

  private static TaskDescription readTask(ByteBuf in) {
    long taskId = readLong(in);
    int kind = readUnsignedByte(in);
    if (kind >= TaskDescription.Kind.values().length) {
      throw new IllegalArgumentException("unknown task kind " + kind);
    }
    int stageId = readInt(in);
    int index = readInt(in);
    int attempt = readInt(in);
    String taskClass = readString(in);
    byte[] split = readBytes(in);
    int hostCount = readCount(in, 4);
    List<String> hosts = new ArrayList<>(hostCount);
    for (int i = 0; i < hostCount; i++) {
      hosts.add(readString(in));
    }
    int inputCount = readCount(in, 8);
    List<TaskDescription.ShuffleInput> inputs = new ArrayList<>(inputCount);
    for (int s = 0; s < inputCount; s++) {
      int shuffleId = readInt(in);
      int mapCount = readCount(in, 12);
      List<MapLocation> outputs = new ArrayList<>(mapCount);
      for (int i = 0; i < mapCount; i++) {
        outputs.add(new MapLocation(readInt(in), readString(in), readInt(in)));
      }
      inputs.add(new TaskDescription.ShuffleInput(shuffleId, outputs));
    }
    int outputPartitions = readInt(in);
    JobPlan.Partitioning partitioning = new JobPlan.Partitioning(readString(in), readBytes(in));
    String outputPath = readString(in);
    int datasetFlag = readUnsignedByte(in);
    if (datasetFlag > 2) {
      throw new IllegalArgumentException("unknown dataset flag " + datasetFlag);
    }
    TaskDescription.DatasetBlock dataset = datasetFlag == 0 ? null
        : new TaskDescription.DatasetBlock(readString(in), readString(in), datasetFlag == 2);
    return new TaskDescription(taskId, TaskDescription.Kind.values()[kind], stageId, index,
        attempt, taskClass, split, hosts, inputs, outputPartitions, partitioning, outputPath,
        dataset, readBytes(in));
  }

  private static void writeOutcome(ByteBuf out, TaskOutcome o) {
    out.writeLong(o.taskId());
    out.writeByte(o.state().ordinal());
    writeString(out, o.message());
    writeString(out, o.fetchHost());
    out.writeInt(o.fetchPort());
    out.writeByte(o.wholeServiceLost() ? 1 : 0);
    out.writeInt(o.lostShuffleId());
    out.writeInt(o.lostMapIds().size());
    o.lostMapIds().forEach(out::writeInt);
    out.writeInt(o.metrics().size());
    o.metrics().forEach((k, v) -> {
      writeString(out, k);
      out.writeLong(v);
    });
    writeString(out, o.lossCause());
  }

  private static TaskOutcome readOutcome(ByteBuf in) {
    long taskId = readLong(in);
    int state = readUnsignedByte(in);
    if (state >= TaskOutcome.State.values().length) {
      throw new IllegalArgumentException("unknown task state " + state);
    }
    String message = readString(in);
    String fetchHost = readString(in);
    int fetchPort = readInt(in);
    boolean wholeService = readUnsignedByte(in) != 0;
    int lostShuffleId = readInt(in);
    int lostCount = readCount(in, 4);
    List<Integer> lost = new ArrayList<>(lostCount);
    for (int i = 0; i < lostCount; i++) {
      lost.add(readInt(in));
    }
    int metricCount = readCount(in, 12);
    Map<String, Long> metrics = new LinkedHashMap<>();
    for (int i = 0; i < metricCount; i++) {
      metrics.put(readString(in), readLong(in));
    }
    String lossCause = readString(in);
    return new TaskOutcome(taskId, TaskOutcome.State.values()[state], message, fetchHost,
        fetchPort, wholeService, lostShuffleId, lost, metrics, lossCause);
  }

  private static List<Long> readTaskIds(ByteBuf in) {
    int count = readCount(in, 8);
    List<Long> ids = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      ids.add(in.readLong());
    }
    return ids;
  }

  private static void writeString(ByteBuf out, String s) {
    writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
  }

  private static void writeBytes(ByteBuf out, byte[] bytes) {
    out.writeInt(bytes.length);
    out.writeBytes(bytes);
  }

  private static String readString(ByteBuf in) {
    return new String(readBytes(in), StandardCharsets.UTF_8);
  }

  private static byte[] readBytes(ByteBuf in) {
    int length = readInt(in);
    if (length < 0 || length > MAX_FIELD_BYTES || length > in.readableBytes()) {
      throw new IllegalArgumentException("field length " + length + " is negative or beyond"
          + " the " + in.readableBytes() + " bytes left in the frame");
    }
    byte[] bytes = new byte[length];
    in.readBytes(bytes);
    return bytes;
  }

  /** A list count, checked against the bytes left so a bad count cannot allocate much. */
  private static int readCount(ByteBuf in, int minItemBytes) {
    int count = readInt(in);
    if (count < 0 || (long) count * minItemBytes > in.readableBytes()) {
      throw new IllegalArgumentException("list count " + count + " does not fit the "
          + in.readableBytes() + " bytes left in the frame");
    }
    return count;
  }

  private static int readInt(ByteBuf in) {
    need(in, 4);
    return in.readInt();
  }

  private static long readLong(ByteBuf in) {
    need(in, 8);
    return in.readLong();
  }

  private static int readUnsignedByte(ByteBuf in) {
    need(in, 1);
    return in.readUnsignedByte();
  }

  private static void need(ByteBuf in, int bytes) {
    if (in.readableBytes() < bytes) {
      throw new IllegalArgumentException("RPC frame truncated: needed " + bytes
          + " more bytes at offset " + in.readerIndex());
    }
  }
}
