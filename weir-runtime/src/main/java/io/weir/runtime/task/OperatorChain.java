package io.weir.runtime.task;

import io.weir.api.config.CoreOptions;
import io.weir.api.functions.TaskInfo;
import io.weir.api.graph.KeyContext;
import io.weir.api.graph.Operation;
import io.weir.api.sink.Sink;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.checkpoint.RestoredOperatorState;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamEdge;
import io.weir.runtime.graph.StreamNode;
import io.weir.runtime.graph.UserCode;
import io.weir.runtime.metrics.OperatorMetrics;
import io.weir.runtime.metrics.UserMetrics;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.operators.OneInputOperator;
import io.weir.runtime.operators.OperatorContext;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.operators.OperatorFactory;
import io.weir.runtime.operators.Output;
import io.weir.runtime.operators.StreamOperator;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.state.KeyGroupRangeAssignment;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.KeyedStateBackendFactory;
import io.weir.runtime.state.KeyedStateBackends;
import io.weir.runtime.state.TaskLocalStateStore;
import io.weir.runtime.time.ProcessingTimeService;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operators of one subtask, wired head to tail: chained edges become method calls, network
 * edges become record writers. Built and used on the task thread.
 */
final class OperatorChain {

  private final Map<StreamNode, StreamOperator<?>> operators = new LinkedHashMap<>();
  private final List<KeyedStateBackend<?>> backends = new ArrayList<>();

  /** Where each one-input operator's elements enter: the operator, or its keyed input. */
  private final Map<StreamNode, OneInputOperator<?>> inputs = new LinkedHashMap<>();

  private final Output<?> sourceOutput;

  /** The outputs to other tasks, whose records are the chain's records out. */
  private final List<ChainOutputs.Network<?>> networkOutputs = new ArrayList<>();

  private final StreamNode headNode;
  private final List<StreamOperator<?>> headFirst;

  @SuppressWarnings({"unchecked", "rawtypes"})
  OperatorChain(
      JobGraph graph,
      JobVertex vertex,
      TaskInfo taskInfo,
      Map<StreamEdge, RecordWriter<?>> writers,
      ProcessingTimeService timeService,
      Map<String, RestoredOperatorState> restored,
      TaskLocalStateStore localState,
      UserMetrics metrics)
      throws IOException {
    try {
      boolean objectReuse = graph.configuration().get(CoreOptions.OBJECT_REUSE);
      List<StreamNode> chain = vertex.getChain();
      Output<?> headSourceOutput = null;
      for (int i = chain.size() - 1; i >= 0; i--) {
        StreamNode node = chain.get(i);
        List<Output<Object>> outputs = new ArrayList<>();
        Map<String, List<Output<Object>>> sideOutputs = new LinkedHashMap<>();
        for (StreamEdge edge : node.getOutEdges()) {
          Output<Object> edgeOutput;
          if (vertex.contains(edge.target())) {
            OneInputOperator<?> next = inputs.get(edge.target());
            TypeSerializer<Object> serializer =
                (TypeSerializer<Object>) edge.recordType().createSerializer();
            TypeSerializer<Object> copier =
                objectReuse || serializer.isImmutableType() || !keepsElements(edge.target())
                    ? null
                    : serializer;
            edgeOutput =
                new ChainOutputs.Chaining<>(
                    (OneInputOperator<Object>) next,
                    operators.get(edge.target()),
                    edge.target().getName(),
                    copier);
          } else {
            ChainOutputs.Network<Object> network =
                new ChainOutputs.Network<>((RecordWriter<Object>) writers.get(edge));
            networkOutputs.add(network);
            edgeOutput = network;
          }
          if (edge.outputTag() == null) {
            outputs.add(edgeOutput);
          } else {
            sideOutputs
                .computeIfAbsent(edge.outputTag().getId(), id -> new ArrayList<>())
                .add(edgeOutput);
          }
        }
        Output<Object> output = combined(outputs);
        if (!sideOutputs.isEmpty()) {
          Map<String, Output<Object>> sides = new LinkedHashMap<>();
          sideOutputs.forEach((id, list) -> sides.put(id, combined(list)));
          output = new ChainOutputs.WithSideOutputs<>(output, sides);
        }
        if (node.isSource()) {
          headSourceOutput = output;
          continue;
        }
        TypeSerializer<?> outSerializer =
            node.getOperation().isSink() ? null : node.getOutputType().createSerializer();
        StreamOperator op =
            OperatorFactory.create(
                node.getName(),
                node.getOperation(),
                node.getKeyContext1(),
                node.getKeyContext2(),
                outSerializer);
        RestoredOperatorState state = restored.get(node.getOperatorId());
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        KeyedStateBackend<?> backend =
            node.isKeyed() ? keyedBackend(node, graph, taskInfo, loader, state, localState) : null;
        if (backend != null) {
          backends.add(backend);
        }
        OperatorContext ctx =
            new OperatorContext(
                node.getName(),
                taskInfo,
                loader,
                backend,
                state == null
                    ? new DefaultOperatorStateStore(node.getName())
                    : new DefaultOperatorStateStore(node.getName(), state.operatorLists(), loader),
                attributed(timeService, node.getName()),
                node.getOperatorId(),
                state == null ? -1 : state.checkpointId(),
                graph.configuration().get(CoreOptions.GLOBAL_JOB_PARAMETERS),
                OperatorMetrics.of(
                    metrics, graph.jobName(), taskInfo, node.getName(), node.getOperatorId()));
        op.setup(ctx, output);
        operators.put(node, op);
        if (op instanceof OneInputOperator<?> oneInput) {
          inputs.put(
              node,
              backend == null
                  ? oneInput
                  : new KeyedInput(
                      oneInput,
                      UserCode.copy(node.getKeyContext1().selector(), node.getName()),
                      backend));
        }
      }
      this.sourceOutput = headSourceOutput;
      this.headNode = chain.get(0);
      List<StreamOperator<?>> ordered = new ArrayList<>();
      for (StreamNode node : chain) {
        StreamOperator<?> op = operators.get(node);
        if (op != null) {
          ordered.add(op);
        }
      }
      this.headFirst = Collections.unmodifiableList(ordered);
    } catch (IOException | RuntimeException | Error e) {
      closeKeyedStateBackends(); // the ones created before the failure
      throw e;
    }
  }

  /**
   * False for a sink that neither keeps nor changes the elements it is handed ({@link
   * Sink#keepsElements()}): it needs no copy of a mutable one.
   */
  private static boolean keepsElements(StreamNode node) {
    return !(node.getOperation() instanceof Operation.SinkTo sinkTo)
        || sinkTo.sink().keepsElements();
  }

  private static Output<Object> combined(List<Output<Object>> outputs) {
    return outputs.isEmpty()
        ? new ChainOutputs.Discarding<>()
        : outputs.size() == 1 ? outputs.get(0) : new ChainOutputs.Broadcasting<>(outputs);
  }

  private static KeyedStateBackend<?> keyedBackend(
      StreamNode node,
      JobGraph graph,
      TaskInfo taskInfo,
      ClassLoader loader,
      RestoredOperatorState restored,
      TaskLocalStateStore localState)
      throws IOException {
    KeyContext<?, ?> key = node.getKeyContext1();
    KeyGroupRange range =
        KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
            node.getMaxParallelism(),
            taskInfo.numberOfParallelSubtasks(),
            taskInfo.indexOfThisSubtask());
    try {
      return KeyedStateBackends.create(
          new KeyedStateBackendFactory.Context<>(
              node.getName(),
              node.getOperatorId(),
              taskInfo,
              key.keyType().createSerializer(),
              range,
              graph.configuration(),
              loader,
              restored,
              graph,
              localState));
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(
          "Could not create the keyed state backend of '" + node.getName() + "'", e);
    }
  }

  /** The keyed state backends of the chain's operators. */
  List<KeyedStateBackend<?>> keyedStateBackends() {
    return backends;
  }

  /** Closes every keyed state backend (releasing memory and local files). */
  void closeKeyedStateBackends() {
    for (KeyedStateBackend<?> backend : backends) {
      backend.close();
    }
  }

  /** Timer callbacks of one operator, with failures attributed to that operator. */
  private static ProcessingTimeService attributed(ProcessingTimeService service, String operator) {
    return new ProcessingTimeService() {
      @Override
      public long getCurrentProcessingTime() {
        return service.getCurrentProcessingTime();
      }

      @Override
      public Cancellable registerTimer(long timestamp, Callback callback) {
        return service.registerTimer(
            timestamp,
            time -> {
              try {
                callback.onProcessingTime(time);
              } catch (OperatorException | CancelTaskException e) {
                throw e;
              } catch (Exception e) {
                throw new OperatorException(operator, e);
              }
            });
      }
    };
  }

  /** The entry of the head operator for network input, when it has one input. */
  /**
   * Records the chain sent to other tasks, once per network edge, as Flink's task metric {@code
   * numRecordsOut} counts them (a chain that ends in a sink sends none). Exact on the task thread;
   * from another thread, a recent value.
   */
  long recordsOut() {
    long records = 0;
    for (ChainOutputs.Network<?> output : networkOutputs) {
      records += output.records();
    }
    return records;
  }

  OneInputOperator<?> headInput() {
    return inputs.get(headNode);
  }

  /** The output a source emits into; null when the head is not a source. */
  Output<?> sourceOutput() {
    return sourceOutput;
  }

  /** The first operator: what network input feeds. */
  StreamOperator<?> head() {
    return headFirst.get(0);
  }

  /** The operators, head first. */
  List<StreamOperator<?>> operatorsHeadFirst() {
    return headFirst;
  }
}
