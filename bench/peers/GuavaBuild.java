// Guava's side of bench/interop_bench.sh: BloomFilter.create(Funnels.stringFunnel(UTF_8), n, p),
// put every line of KEYS (read as UTF-8, split on '\n'), writeTo OUT — what a Java job that
// builds a blacklist for a Java service does.
//
//   java -cp guava.jar:. GuavaBuild N P KEYS OUT
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

public class GuavaBuild {
  public static void main(String[] args) throws Exception {
    BloomFilter<CharSequence> bf = BloomFilter.create(
        Funnels.stringFunnel(StandardCharsets.UTF_8), Long.parseLong(args[0]),
        Double.parseDouble(args[1]));
    try (BufferedReader in = new BufferedReader(
             new InputStreamReader(new FileInputStream(args[2]), StandardCharsets.UTF_8), 1 << 16)) {
      for (String line; (line = in.readLine()) != null;) bf.put(line);
    }
    try (OutputStream out = new BufferedOutputStream(new FileOutputStream(args[3]))) {
      bf.writeTo(out);
    }
  }
}
