package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** The answer to rotate: the version that was current and the new one. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RotateResult(String id, String state, int previousVersion, int currentVersion, String rotatedAt, String rotationPolicy) {
}
