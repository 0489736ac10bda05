package io.rubix.core.cluster.rest;

import static java.util.Objects.requireNonNull;

import io.rubix.core.config.Secret;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Base64;
import java.util.Optional;

/** The {@code Authorization} header a REST cluster manager sends, if any. Implementations never show the secret in {@code toString()}. */
interface Authorization {
  Authorization NONE = new Authorization() {
    @Override
    public Optional<String> header() {
      return Optional.empty();
    }

    @Override
    public String toString() {
      return "none";
    }
  };

  /**
   * The header value for the next request.
   *
   * @throws IOException when the credential cannot be read (a token file that is missing or empty)
   */
  Optional<String> header() throws IOException;

  static Authorization basic(String user, Secret password) {
    return new Fixed("Basic " + Base64.getEncoder().encodeToString((user + ":" + password.reveal()).getBytes(StandardCharsets.UTF_8)),
        "basic as " + user);
  }

  static Authorization bearer(Secret token) {
    return new Fixed("Bearer " + token.reveal(), "bearer token");
  }

  static Authorization bearerFile(Path file) {
    return new TokenFile(file);
  }

  /** A header value that never changes, described by {@code description} (which must not hold the secret). */
  final class Fixed implements Authorization {
    private final String value;
    private final String description;

    private Fixed(String value, String description) {
      this.value = requireNonNull(value, "value is null");
      this.description = requireNonNull(description, "description is null");
    }

    @Override
    public Optional<String> header() {
      return Optional.of(value);
    }

    @Override
    public String toString() {
      return description;
    }
  }

  /** A bearer token kept in a file, re-read when the file's modification time or size changes (token rotation). */
  final class TokenFile implements Authorization {
    private final Path file;
    // the refreshing thread is the only caller
    private Object stamp;
    private String value;

    TokenFile(Path file) {
      this.file = requireNonNull(file, "file is null");
    }

    @Override
    public Optional<String> header() throws IOException {
      BasicFileAttributes attributes;
      try {
        attributes = Files.readAttributes(file, BasicFileAttributes.class);
      } catch (IOException e) {
        throw new IOException("Cannot read the bearer token file " + file + ": " + e.getClass().getSimpleName());
      }
      Object current = attributes.lastModifiedTime().toMillis() + "/" + attributes.size() + "/" + attributes.fileKey();
      if (!current.equals(stamp)) {
        String token;
        try {
          token = Files.readString(file, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
          throw new IOException("Cannot read the bearer token file " + file + ": " + e.getClass().getSimpleName());
        }
        if (token.isEmpty()) {
          throw new IOException("The bearer token file " + file + " is empty");
        }
        value = "Bearer " + token;
        stamp = current;
      }
      return Optional.of(value);
    }

    @Override
    public String toString() {
      return "bearer token from " + file;
    }
  }
}
