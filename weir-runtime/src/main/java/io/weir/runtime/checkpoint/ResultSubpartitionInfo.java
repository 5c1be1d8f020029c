package io.weir.runtime.checkpoint;

/**
 * One output channel of a subtask.
 *
 * @param edgeId the output edge ({@code StreamEdge.id()})
 * @param subpartition the channel's index among the edge's channels of this subtask
 */
public record ResultSubpartitionInfo(int edgeId, int subpartition) {}
