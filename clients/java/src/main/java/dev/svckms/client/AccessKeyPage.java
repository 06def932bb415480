package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/** One page of access keys, by id. {@code nextAfter} is present while there may be more: pass it as {@code after}. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AccessKeyPage(List<AccessKey> accessKeys, String nextAfter) {

    public boolean hasMore() {
        return nextAfter != null;
    }
}
