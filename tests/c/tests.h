/* One entry point per test file; main.c runs them in order. */
#ifndef GW_TESTS_H
#define GW_TESTS_H

void run_client_tests(void);
void run_args_tests(void);
void run_chat_tests(void);
void run_auth_tests(void);
void run_retry_tests(void);
void run_stream_tests(void);
void run_errors_tests(void);
void run_images_video_tests(void);
void run_video_wait_tests(void);
void run_threads_tests(void);
void run_misc_tests(void);
void run_json_tests(void);
void run_handles_tests(void);
void run_cancel_pull_tests(void);
void run_security_tests(void);
void run_peer_close_tests(void);
void run_exchange_misuse_tests(void);
void run_exchange_feed_tests(void);
void run_exchange_loop_tests(void);
void run_exchange_wait_tests(void);

#endif /* GW_TESTS_H */
