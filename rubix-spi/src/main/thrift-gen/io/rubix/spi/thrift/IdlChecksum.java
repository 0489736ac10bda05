package io.rubix.spi.thrift;

/** SHA-256 of the bookkeeper.thrift this code was generated from; a test compares it with the IDL. */
public final class IdlChecksum {
  public static final String SHA256 = "6cc3252b108cb6dc5a4835e17fcf562ac313ce4ed7b5c7add51896a057b4a3fb";

  private IdlChecksum() {}
}
