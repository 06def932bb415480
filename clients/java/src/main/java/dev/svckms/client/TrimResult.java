package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** The answer to trim: every version below {@code minVersion} is erased; {@code erasure} is complete or pending. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record TrimResult(String id, String state, int currentVersion, int minVersion, String erasure) {
}
