import type { Kafka } from 'kafkajs';

type Cluster = {
  findControllerBroker(): Promise<unknown>;
  getNodeIds(): number[];
  findBroker(q: { nodeId: number }): Promise<unknown>;
};

/**
 * An idempotent producer's InitProducerId may go to any broker (KIP-98; kafkajs says so beside the call),
 * but kafkajs sends it to the controller and fails when the cluster names a controller that is not among
 * its brokers (a cluster between elections; librdkafka's mock cluster, which reports controller 0 while
 * its brokers are 1..N). This lets those clusters' InitProducerId fall back to a known broker; a cluster
 * with a known controller is asked exactly as before. kafkajs 2.2 is its final line; if a future one
 * hides the hook, nothing is changed.
 */
export function askAnyBrokerWhenControllerUnknown(kafka: Kafka): void {
  const target = kafka as unknown as Record<symbol, (...args: unknown[]) => Cluster>;
  const key = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  if (!key || typeof target[key] !== 'function') return;
  const createCluster = target[key];
  target[key] = (...args: unknown[]) => {
    const cluster = createCluster(...args);
    const askController = cluster.findControllerBroker.bind(cluster);
    cluster.findControllerBroker = async () => {
      try {
        return await askController();
      } catch (err) {
        const [nodeId] = cluster.getNodeIds();
        if ((err as Error).name !== 'KafkaJSBrokerNotFound' || nodeId === undefined) throw err;
        return cluster.findBroker({ nodeId });
      }
    };
    return cluster;
  };
}
