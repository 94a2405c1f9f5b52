package dev.idnode.client;

/**
 * A HiLo range the cluster reserved for one caller: numbers {@code low..high} of tag, printed as
 * {@code prefix + n + "-" + serverTag}.
 *
 * @param prefix the tag and separator, e.g. {@code orders/}
 * @param low the first number
 * @param high the last number
 * @param lastSize the range's size, to send back as the next request's last batch size
 * @param serverTag the tag of the node that granted it
 * @param lastRangeAt when it was granted (Unix ms), to send back with the next request
 * @param grantId what a return of the range must present; keep it as secret as the range
 */
public record HiLoRange(String prefix, long low, long high, long lastSize, String serverTag, long lastRangeAt, String grantId) {}
