// The Guava side of the interop tests: Guava's own BloomFilter, driven from the shell.
// Keys are read from a file as bytes, split on '\n' only, and decoded as UTF-8 into the Strings
// that Funnels.stringFunnel(UTF_8) hashes.
//
//   java GuavaPeer size                          stdin "n p" lines -> "n p words k" (create + writeTo)
//   java GuavaPeer create N P 64|32 KEYS OUT     create(stringFunnel(UTF_8), n, p), put, writeTo
//   java GuavaPeer query FILE KEYS               readFrom, then one line per key: 1 or 0
//   java GuavaPeer check FILE KEYS               readFrom, then the keys mightContain accepts,
//                                                one per line (what `bloomtool query` prints)
//
// MURMUR128_MITZ_32 is not selectable through the public API; `create ... 32` calls the
// package-private create(funnel, n, p, strategy) by reflection.
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

public class GuavaPeer {
  static final Funnel<CharSequence> FUNNEL = Funnels.stringFunnel(StandardCharsets.UTF_8);

  static List<String> keys(String path) throws Exception {
    byte[] b = Files.readAllBytes(Paths.get(path));
    List<String> out = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < b.length; i++) {
      if (b[i] == '\n') {
        out.add(new String(b, start, i - start, StandardCharsets.UTF_8));
        start = i + 1;
      }
    }
    if (start < b.length) out.add(new String(b, start, b.length - start, StandardCharsets.UTF_8));
    return out;
  }

  @SuppressWarnings("unchecked")
  static BloomFilter<CharSequence> create(long n, double p, String strategy) throws Exception {
    if (strategy.equals("64")) return BloomFilter.create(FUNNEL, n, p);
    Class<?> strategies = Class.forName("com.google.common.hash.BloomFilterStrategies");
    Object mitz32 = strategies.getEnumConstants()[0];
    if (!mitz32.toString().equals("MURMUR128_MITZ_32")) throw new IllegalStateException("ordinal 0 is " + mitz32);
    Class<?> strategyType = Class.forName("com.google.common.hash.BloomFilter$Strategy");
    Method m = BloomFilter.class.getDeclaredMethod("create", Funnel.class, long.class, double.class, strategyType);
    m.setAccessible(true);
    return (BloomFilter<CharSequence>) m.invoke(null, FUNNEL, n, p, mitz32);
  }

  public static void main(String[] args) throws Exception {
    PrintStream out =
        new PrintStream(new BufferedOutputStream(System.out, 1 << 16), false, StandardCharsets.UTF_8);
    switch (args[0]) {
      case "size": {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
          String[] f = line.trim().split("\\s+");
          if (f.length < 2) continue;
          BloomFilter<CharSequence> bf = BloomFilter.create(FUNNEL, Long.parseLong(f[0]), Double.parseDouble(f[1]));
          ByteArrayOutputStream header = new ByteArrayOutputStream();
          bf.writeTo(header);
          byte[] b = header.toByteArray();
          int words = ((b[2] & 0xff) << 24) | ((b[3] & 0xff) << 16) | ((b[4] & 0xff) << 8) | (b[5] & 0xff);
          out.println(f[0] + " " + f[1] + " " + words + " " + (b[1] & 0xff));
        }
        break;
      }
      case "create": {
        BloomFilter<CharSequence> bf = create(Long.parseLong(args[1]), Double.parseDouble(args[2]), args[3]);
        for (String k : keys(args[4])) bf.put(k);
        try (OutputStream o = new BufferedOutputStream(new FileOutputStream(args[5]))) {
          bf.writeTo(o);
        }
        break;
      }
      case "query": {
        BloomFilter<CharSequence> bf;
        try (InputStream in = new FileInputStream(args[1])) {
          bf = BloomFilter.readFrom(in, FUNNEL);
        }
        for (String k : keys(args[2])) out.print(bf.mightContain(k) ? "1\n" : "0\n");
        break;
      }
      case "check": {
        BloomFilter<CharSequence> bf;
        try (InputStream in = new FileInputStream(args[1])) {
          bf = BloomFilter.readFrom(in, FUNNEL);
        }
        for (String k : keys(args[2])) {
          if (bf.mightContain(k)) out.print(k + "\n");
        }
        break;
      }
      default:
        throw new IllegalArgumentException("unknown mode " + args[0]);
    }
    out.flush();
  }
}
