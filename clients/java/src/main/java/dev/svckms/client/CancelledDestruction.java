package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** The answer to cancelDestroy: the key, kept in {@code state}, and the destruction date that was cancelled. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CancelledDestruction(String id, String state, String cancelledDestroyAt) {
}
