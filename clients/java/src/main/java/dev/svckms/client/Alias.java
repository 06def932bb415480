package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * An alias ({@code alias/NAME}) and the key it names; usable wherever a key id is. {@code previousKeyId} is
 * set only in the answer to a move: the key the alias named before. Times are ISO 8601 UTC.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Alias(String name, String keyId, String createdAt, String previousKeyId) {
}
