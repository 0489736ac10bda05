package io.rubix.core.cluster.rest;

/** Which coordinator the {@code presto} and {@code trino} cluster managers talk to: they differ in the user header. */
enum PrestoFlavor {
  PRESTO("presto", "X-Presto-User"),
  TRINO("trino", "X-Trino-User");

  private final String managerName;
  private final String userHeader;

  PrestoFlavor(String managerName, String userHeader) {
    this.managerName = managerName;
    this.userHeader = userHeader;
  }

  /** The value of {@code rubix.cluster.manager}. */
  String managerName() {
    return managerName;
  }

  String userHeader() {
    return userHeader;
  }
}
