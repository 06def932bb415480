package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Map;

/**
 * A stored version of the role-based policy, as getPolicy and putPolicy answer it: its number (1 is the
 * configured bindings), its ETag (what putPolicy needs as If-Match) and its bindings.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Policy(int version, String etag, Map<String, Object> roleBindings, Map<String, Object> subjectBindings) {

    /** The bindings, to change and send back with {@code putPolicy(document, etag())}. */
    public PolicyDocument document() {
        return new PolicyDocument(roleBindings, subjectBindings);
    }
}
