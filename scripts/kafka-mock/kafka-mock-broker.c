/*
 * A Kafka-protocol broker for the tests: librdkafka's mock cluster, kept running until stdin closes or
 * SIGTERM. No Kafka broker ships in Debian or npm; the mock speaks the real wire protocol (produce with
 * acks=all, fetch, consumer groups), so kafkajs talks to it as to a broker.
 *
 *   kafka-mock-broker BROKERS TOPIC:PARTITIONS...
 * prints "bootstrap <host:port,...>" on stdout once the topics exist (the mock does not implement
 * CreateTopics: topics are made here). Then reads commands on stdin, one per line, answering "ok":
 *   down ID   the broker refuses connections and drops the ones it has (a broker outage)
 *   up ID     it accepts them again, with the data it had
 * and exits when stdin closes or on SIGTERM.
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s BROKERS [TOPIC:PARTITIONS...]\n", argv[0]);
    return 2;
  }
  char err[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk) {
    fprintf(stderr, "rd_kafka_new: %s\n", err);
    return 1;
  }
  rd_kafka_mock_cluster_t *cluster = rd_kafka_mock_cluster_new(rk, atoi(argv[1]));
  if (!cluster) {
    fprintf(stderr, "rd_kafka_mock_cluster_new failed\n");
    return 1;
  }
  for (int i = 2; i < argc; i++) {
    char topic[256];
    int partitions = 1;
    if (sscanf(argv[i], "%255[^:]:%d", topic, &partitions) < 1) continue;
    if (rd_kafka_mock_topic_create(cluster, topic, partitions, 1) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      fprintf(stderr, "cannot create topic %s\n", topic);
      return 1;
    }
  }
  printf("bootstrap %s\n", rd_kafka_mock_cluster_bootstraps(cluster));
  fflush(stdout);
  char line[128];
  while (fgets(line, sizeof line, stdin)) {
    int id;
    if (sscanf(line, "down %d", &id) == 1) rd_kafka_mock_broker_set_down(cluster, id);
    else if (sscanf(line, "up %d", &id) == 1) rd_kafka_mock_broker_set_up(cluster, id);
    else continue;
    printf("ok\n");
    fflush(stdout);
  }
  rd_kafka_mock_cluster_destroy(cluster);
  rd_kafka_destroy(rk);
  return 0;
}
