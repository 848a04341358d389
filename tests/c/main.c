/* The C suite's runner: every test file in turn, then "N passed, N failed". */
#include "harness.h"
#include "support.h"
#include "tests.h"

int main(void)
{
    test_base_url(); /* exits early with a hint when the mock's address is missing */
    run_misc_tests();
    run_json_tests();
    run_client_tests();
    run_args_tests();
    run_chat_tests();
    run_auth_tests();
    run_retry_tests();
    run_stream_tests();
    run_errors_tests();
    run_images_video_tests();
    run_video_wait_tests();
    run_threads_tests();
    run_handles_tests();
    run_cancel_pull_tests();
    run_security_tests();
    run_peer_close_tests();
    run_exchange_misuse_tests();
    run_exchange_feed_tests();
    run_exchange_loop_tests();
    run_exchange_wait_tests();
    support_cleanup();
    return harness_report();
}
