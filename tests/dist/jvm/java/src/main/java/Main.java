// test-dist: a Java program of a user: gw's native library from the gw-kotlin jar alone, its
// version the jar's (args[0]).
import dev.gw.Gw;

public class Main {
    public static void main(String[] args) {
        String version = Gw.INSTANCE.getVersion();
        if (!version.equals(args[0])) {
            throw new IllegalStateException("gw " + version + " loaded, expected " + args[0]);
        }
        String timeout = Gw.INSTANCE.statusName(-3);
        if (!timeout.equals("GW_TIMEOUT")) {
            throw new IllegalStateException("statusName(-3) = " + timeout);
        }
        System.out.println("java consumer: gw " + version + ", status names ok");
    }
}
