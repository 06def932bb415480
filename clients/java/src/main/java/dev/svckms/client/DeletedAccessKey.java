package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** The answer to a delete: the key's id and principal; {@code deleted} is always true. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record DeletedAccessKey(String accessKeyId, boolean deleted, AccessKeyPrincipal principal) {
}
