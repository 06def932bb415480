package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Map;

/** A key's tags after tagKey or untagKey: tag key to value. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record KeyTags(String id, Map<String, String> tags) {
}
