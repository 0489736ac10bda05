package io.rubix.spi.thrift;

/** SHA-256 of the bookkeeper.thrift this code was generated from; a test compares it with the IDL. */
public final class IdlChecksum {
  public static final String SHA256 = "bc19c319e6fa2e095a9b928c45e6cad67d39d73b1c3e2fd73d87cd3135721382";

  private IdlChecksum() {}
}
