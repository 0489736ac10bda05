# Read by bin/rubix-bookkeeper and bin/rubix before they start Java (bash syntax).
# export JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64
# export RUBIX_LOG_DIR=/var/log/rubix
# Heap: the daemon keeps one bit set and one CRC32C per cached block (~5 bytes per block):
# 1 GB of heap is plenty for tens of TB of cache at 1 MB blocks.
# export RUBIX_BOOKKEEPER_OPTS="-Xms256m -Xmx1g -XX:+ExitOnOutOfMemoryError -XX:+HeapDumpOnOutOfMemoryError -XX:HeapDumpPath=/var/log/rubix"
# export RUBIX_CLI_OPTS="-Xmx512m"
# Extra jars for `rubix warmup` on schemes other than s3a/s3/s3n (GCS, ABFS connectors):
# export RUBIX_CLASSPATH="/usr/lib/hadoop/lib/gcs-connector.jar"
