//! The post-processing build.rs applies to cbindgen's output (headergen/): nullability from
//! the table, a clear refusal of pointers the table does not cover, C89 comments.
//! The real header's compilers' view is checked by scripts/test-header.sh.

#[allow(dead_code)] // build.rs uses the rest
#[path = "../headergen/nullability.rs"]
mod nullability;

#[path = "../headergen/c89.rs"]
mod c89;

/// cbindgen's output with its pointer marks, as build.rs configures it.
fn marked(c: &str) -> String {
    c.replace("MARK", nullability::MARK)
}

#[test]
fn annotates_parameters_returns_fields_and_callbacks_from_the_table() {
    let input = marked(
        "typedef struct gw_event {\n  const char *MARK event;\n  const char *MARK text_delta;\n} gw_event;\n\
         typedef int (*MARK gw_event_cb)(const struct gw_event *MARK event,\n                               void *MARK user_data);\n\
         struct gw_client *MARK gw_client_new(const char *MARK base_url, const char *MARK api_key);\n\
         int gw_chat_stream(const struct gw_client *MARK client, gw_event_cb callback, char *MARK *MARK out);\n\
         int gw_embedding_decode(const char *MARK base64, float *MARK *MARK out_floats, size_t *MARK out_len);\n",
    );
    let out = nullability::annotate(&input).unwrap();
    assert!(!out.contains(nullability::MARK), "{out}");
    for want in [
        "  const char *event;\n",
        "  const char *GW_NULLABLE text_delta;\n",
        // The typedef stays plain (its uses are annotated); wrapped arguments line up again.
        "typedef int (*gw_event_cb)(const struct gw_event *event,\n                           void *GW_NULLABLE user_data);\n",
        "struct gw_client *GW_NULLABLE gw_client_new(const char *GW_NULLABLE base_url, const char *GW_NULLABLE api_key);",
        "gw_chat_stream(const struct gw_client *client, gw_event_cb GW_NULLABLE callback, char *GW_NULLABLE *GW_NULLABLE out);",
        "float *GW_NULLABLE *GW_NONNULL out_floats, size_t *out_len);",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
}

#[test]
fn a_free_function_takes_null_whatever_its_argument_is_called() {
    let out =
        nullability::annotate(&marked("void gw_stream_free(gw_stream *MARK stream);\n")).unwrap();
    assert_eq!(out, "void gw_stream_free(gw_stream *GW_NULLABLE stream);\n");
    // The same name elsewhere is non-null.
    let out = nullability::annotate(&marked(
        "int gw_stream_next(gw_stream *MARK stream, const gw_event *MARK *MARK event);\n",
    ))
    .unwrap();
    assert_eq!(
        out,
        "int gw_stream_next(gw_stream *stream, const gw_event *GW_NULLABLE *GW_NONNULL event);\n"
    );
}

#[test]
fn a_pointer_missing_from_the_table_stops_the_build_naming_it() {
    let input = marked(
        "int gw_thing(const struct gw_client *MARK client, const char *MARK label, char *MARK *MARK out);\n\
         const char *MARK gw_thing_name(void);\n\
         typedef struct gw_box {\n  const char *MARK lid;\n} gw_box;\n",
    );
    let err = nullability::annotate(&input).unwrap_err();
    assert!(
        err.contains(
            "`label` in gw_thing (1 pointer level(s)) has no row in headergen/nullability.rs"
        ),
        "{err}"
    );
    assert!(err.contains("the pointer gw_thing_name returns"), "{err}");
    assert!(err.contains("`lid` in gw_box"), "{err}");
    // Covered ones are not reported.
    assert!(!err.contains("`client`") && !err.contains("`out`"), "{err}");
    assert_eq!(err.lines().count(), 3, "{err}");
}

#[test]
fn a_row_with_the_wrong_number_of_levels_stops_the_build() {
    let err = nullability::annotate(&marked(
        "int gw_chat(const struct gw_client *MARK client, char *MARK out);\n",
    ))
    .unwrap_err();
    assert!(err.contains("`out` in gw_chat has 1 pointer level(s) but its row in headergen/nullability.rs gives 2"), "{err}");
}

#[test]
fn line_comments_become_block_comments() {
    let input = "/* see https://example.com/a */\n#ifdef __cplusplus\n}  // extern \"C\"\n#endif  // __cplusplus\n\
                 /**\n * a // inside a comment stays\n */\nconst char *s = \"//\";\n";
    let out = c89::block_comments_only(input);
    assert_eq!(
        out,
        "/* see https://example.com/a */\n#ifdef __cplusplus\n}  /* extern \"C\" */\n#endif  /* __cplusplus */\n\
         /**\n * a // inside a comment stays\n */\nconst char *s = \"//\";\n"
    );
}
