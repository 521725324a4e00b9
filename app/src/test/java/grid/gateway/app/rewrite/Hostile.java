package grid.gateway.app.rewrite;

import java.util.Arrays;
import java.util.SplittableRandom;

/** Generators of hostile input: random bytes, JSON-ish byte soup, and mutations of valid texts. */
public final class Hostile {
    private static final byte[] JSONISH = Fixtures.utf8("{}[]\",:\\ \n\rtfnu0123456789-+.eE_aidresp_conv");

    private Hostile() {}

    /** Up to 300 bytes: half uniformly random, half drawn from JSON's own punctuation and letters. */
    static byte[] randomBytes(SplittableRandom random) {
        byte[] bytes = new byte[random.nextInt(300)];
        boolean soup = random.nextBoolean();
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = soup ? JSONISH[random.nextInt(JSONISH.length)] : (byte) random.nextInt(256);
        }
        return bytes;
    }

    /** {@code original} with one to four bytes overwritten, deleted or inserted at random places. */
    static byte[] mutate(byte[] original, SplittableRandom random) {
        return mutate(original, random, JSONISH);
    }

    /**
     * {@code original} with one to four bytes overwritten, deleted or inserted at random places; half the bytes
     * written are drawn from {@code alphabet}, half are uniformly random.
     */
    public static byte[] mutate(byte[] original, SplittableRandom random, byte[] alphabet) {
        byte[] bytes = original.clone();
        int edits = 1 + random.nextInt(4);
        for (int e = 0; e < edits && bytes.length > 0; e++) {
            int at = random.nextInt(bytes.length);
            byte value = random.nextBoolean() ? alphabet[random.nextInt(alphabet.length)] : (byte) random.nextInt(256);
            switch (random.nextInt(3)) {
                case 0 -> bytes[at] = value;
                case 1 -> {
                    byte[] shorter = new byte[bytes.length - 1];
                    System.arraycopy(bytes, 0, shorter, 0, at);
                    System.arraycopy(bytes, at + 1, shorter, at, bytes.length - at - 1);
                    bytes = shorter;
                }
                default -> {
                    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
                    System.arraycopy(bytes, at, longer, at + 1, bytes.length - at);
                    longer[at] = value;
                    bytes = longer;
                }
            }
        }
        return bytes;
    }
}
