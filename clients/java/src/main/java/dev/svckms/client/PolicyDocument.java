package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What putPolicy replaces, both maps whole: group to binding, and subject to binding. A binding is a list
 * of operation names, or a map {@code {operations, keys, agents}} (docs/auth.md).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PolicyDocument(Map<String, Object> roleBindings, Map<String, Object> subjectBindings) {

    /** The same document with one group's binding added or replaced. */
    public PolicyDocument withRoleBinding(String group, Object binding) {
        Map<String, Object> next = new LinkedHashMap<>(roleBindings);
        next.put(group, binding);
        return new PolicyDocument(next, subjectBindings);
    }

    /** The same document with one subject's binding added or replaced. */
    public PolicyDocument withSubjectBinding(String subject, Object binding) {
        Map<String, Object> next = new LinkedHashMap<>(subjectBindings);
        next.put(subject, binding);
        return new PolicyDocument(roleBindings, next);
    }
}
