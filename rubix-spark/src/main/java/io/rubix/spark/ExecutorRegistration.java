package io.rubix.spark;

import static java.util.Objects.requireNonNull;

import java.io.Serializable;

/**
 * What an executor tells the driver when its plugin starts.
 *
 * @param executorId Spark's executor id
 * @param host the executor's host name
 * @param bookKeeperPort the port of the BookKeeper the executor uses
 * @param embedded whether the executor started that BookKeeper itself (false: the node's daemon)
 * @param cacheHost the address of that BookKeeper: the executor's host, or the node's when the
 *     executor runs in a container of its own (a Kubernetes pod, whose host is the pod's address)
 */
public record ExecutorRegistration(String executorId, String host, int bookKeeperPort, boolean embedded, String cacheHost)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  public ExecutorRegistration {
    requireNonNull(executorId, "executorId is null");
    requireNonNull(host, "host is null");
    requireNonNull(cacheHost, "cacheHost is null");
  }
}
