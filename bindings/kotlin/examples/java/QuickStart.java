// The Java quick start of gw-kotlin, exactly as the binding's README shows it: a chat, a
// streamed chat and a CompletableFuture, with no import beyond these three. Base URL and key
// from GW_BASE_URL / GW_API_KEY. scripts/java-quickstart.sh compiles it with plain javac and
// runs it (make demo against the mock or a real gateway; make test-kotlin against gw-mock).
import dev.gw.*;
import dev.gw.model.*;
import java.util.concurrent.CompletableFuture;

public class QuickStart {
    public static void main(String[] args) throws Exception {
        GwOptions options = GwOptions.builder()
            .baseUrl(System.getenv("GW_BASE_URL"))
            .apiKey(System.getenv("GW_API_KEY"))
            .build();
        try (GwClient gw = new GwClient(options)) {
            ChatRequest request = ChatRequest.builder("my-model").user("Hello from Java").build();
            ChatCompletion answer = gw.blocking().chat(request);
            System.out.println(answer.getText());

            try (GwStream<ChatCompletion> stream = gw.blocking().chatStream(request)) {
                for (GwEvent.Chunk chunk : stream) {
                    String delta = chunk.getTextDelta();   // null for events without text
                    if (delta != null) System.out.print(delta);
                }
                System.out.println(stream.result().getText());
            }

            CompletableFuture<ChatCompletion> future = gw.async().chat(request);
            System.out.println(future.get().getText());
        }
    }
}
