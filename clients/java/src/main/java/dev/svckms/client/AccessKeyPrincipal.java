package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** Who a call signed with an access key acts as: {@code kind} is Human or Service. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AccessKeyPrincipal(String kind, String subject) {
}
