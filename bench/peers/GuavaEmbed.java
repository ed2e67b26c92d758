// Guava's BloomFilter in-process, the same work as bench/embed_bench.c, for bench/embed_bench.sh:
//   java -cp /usr/share/java/guava.jar:. GuavaEmbed MEMBERS N P QUERIES [REPS]
// create(stringFunnel(UTF_8), N, P), put the keys of MEMBERS, then mightContain for every key of
// QUERIES (Strings decoded up front), REPS times (default 7) after a JIT warm-up: median keys/s
// of the thread's CPU time (ThreadMXBean), and of wall-clock time (wall_keys_per_s).
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public class GuavaEmbed {
  static List<String> lines(String path) throws Exception {
    byte[] b = Files.readAllBytes(Paths.get(path));
    List<String> out = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < b.length; i++) {
      if (b[i] == '\n') {
        out.add(new String(b, start, i - start, StandardCharsets.UTF_8));
        start = i + 1;
      }
    }
    return out;
  }

  public static void main(String[] args) throws Exception {
    List<String> members = lines(args[0]);
    long n = Long.parseLong(args[1]);
    double p = Double.parseDouble(args[2]);
    String[] queries = lines(args[3]).toArray(new String[0]);
    int reps = args.length > 4 ? Integer.parseInt(args[4]) : 7;
    BloomFilter<CharSequence> f = BloomFilter.create(Funnels.stringFunnel(StandardCharsets.UTF_8), n, p);
    for (String k : members) f.put(k);
    long present = 0;
    for (int w = 0; w < 3; w++) for (String k : queries) present += f.mightContain(k) ? 1 : 0;
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    double[] t = new double[reps];
    double[] w = new double[reps];
    for (int r = 0; r < reps; r++) {
      present = 0;
      long w0 = System.nanoTime(), t0 = threads.getCurrentThreadCpuTime();
      for (String k : queries) present += f.mightContain(k) ? 1 : 0;
      t[r] = (threads.getCurrentThreadCpuTime() - t0) * 1e-9;
      w[r] = (System.nanoTime() - w0) * 1e-9;
    }
    Arrays.sort(t);
    Arrays.sort(w);
    System.out.printf("keys=%d keys_per_s=%.0f ns_per_key=%.1f present=%d wall_keys_per_s=%.0f%n",
                      queries.length, queries.length / t[reps / 2], t[reps / 2] * 1e9 / queries.length,
                      present, queries.length / w[reps / 2]);
  }
}
