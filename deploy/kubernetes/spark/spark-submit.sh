#!/usr/bin/env bash
# Spark on Kubernetes reading s3a:// through the node-local BookKeepers of ../daemonset.yaml.
# The Spark image must hold hadoop-aws (of Spark's Hadoop version) and the AWS SDK v2, and the RubiX jar
# (rubix-spark-<version>.jar, ./mvnw -B package -pl rubix-spark -am -DskipTests), e.g. in /opt/spark/jars.
# The plugin maps each executor pod to its node, so that split owners are nodes and tasks prefer the pods on
# their owner's node (docs/deploy.md, Locality for Spark on Kubernetes). Reading other nodes' caches also needs
# the daemons' rubix.network.transfer.secret here (spark.hadoop.rubix.network.transfer.secret).
# Usage: K8S_API=https://kubernetes.example:6443 IMAGE=registry.example/spark-rubix:4.0.1 spark-submit.sh APP.jar|APP.py [ARGS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# ${env.RUBIX_HOST_IP} below is for Hadoop's Configuration, which expands it in each pod, not for this shell
# shellcheck disable=SC2016
exec "${SPARK_HOME:?set SPARK_HOME}/bin/spark-submit" \
  --master "k8s://${K8S_API:?set K8S_API}" \
  --deploy-mode cluster \
  --conf spark.kubernetes.container.image="${IMAGE:?set IMAGE}" \
  --conf spark.kubernetes.executor.podTemplateFile="$here/executor-pod-template.yaml" \
  --conf spark.kubernetes.driver.podTemplateFile="$here/executor-pod-template.yaml" \
  --conf spark.hadoop.fs.s3a.impl=io.rubix.hadoop.CachingS3AFileSystem \
  --conf spark.hadoop.rubix.cache.dirs=/mnt/disk1/rubix \
  --conf spark.hadoop.rubix.cluster.embedded.mode=false \
  --conf spark.plugins=io.rubix.spark.RubixPlugin \
  --conf spark.rubix.nodes.file=/tmp/rubix-nodes.txt \
  --conf 'spark.hadoop.rubix.network.bookkeeper.host=${env.RUBIX_HOST_IP}' \
  "$@"
