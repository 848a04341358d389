//! The route table: every endpoint of the API document, the control surface, and the layers
//! (intake = record + faults on everything; auth on matched API routes only, so an unknown
//! path is a 404 whatever the key).

mod chat;
mod control;
mod embeddings;
mod images;
mod native;
mod responses;
mod vendor;
mod video;

use std::sync::Arc;

use axum::http::{Method, Uri};
use axum::middleware::from_fn_with_state;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::Router;

use crate::errors::ApiError;
use crate::state::Shared;
use crate::{auth, intake};

pub fn app(shared: Arc<Shared>) -> Router {
    let api = Router::new()
        .route("/v1/chat/completions", post(chat::completions))
        .route("/v1/responses", post(responses::create))
        .route("/v1/embeddings", post(embeddings::create))
        .route("/v1/images/generations", post(images::generate))
        .route("/v1/images/edits", post(images::edit))
        .route("/v1/video/create", post(video::create))
        .route("/v1/video/generations", post(video::generations))
        .route("/v1/video/generations/{id}", get(video::generation_status))
        .route("/v1/videos", post(video::character))
        .route("/v1/videos/{id}", get(video::character_status))
        .route("/v1/videos/{id}/remix", post(video::remix))
        .route("/vendorK/v1/videos/text2video", post(vendor::k_text2video))
        .route(
            "/vendorK/v1/videos/image2video",
            post(vendor::k_image2video),
        )
        .route(
            "/vendorK/v1/videos/multi-image2video",
            post(vendor::k_multi_image2video),
        )
        .route("/vendorK/v1/videos/{id}", get(vendor::k_status))
        .route("/vendorK/video/effects", post(vendor::k_effects))
        .route("/vendorK/video/extend", post(vendor::k_extend))
        .route("/vendorH/image-to-video", post(vendor::h_image_to_video))
        .route("/vendorM/submit/imagine", post(vendor::m_imagine))
        .route("/vendorI/describe", post(vendor::i_describe))
        .route("/vendorI/generate", post(vendor::i_generate))
        .route("/vendorI/text-to-image", post(vendor::i_text_to_image))
        .route("/vendorR/task/{task_id}", get(vendor::r_task))
        .route("/vendorF/{*rest}", any(vendor::f_dispatch))
        .route("/v1beta/models/{model_action}", any(native::dispatch))
        // A known path with the wrong method is still "Invalid endpoint".
        .method_not_allowed_fallback(not_found)
        .route_layer(from_fn_with_state(shared.clone(), auth::require_key))
        .fallback(not_found);

    let control = Router::new()
        .route(
            "/__mock/faults",
            post(control::push_faults).get(control::list_faults),
        )
        .route("/__mock/requests", get(control::requests))
        .route("/__mock/mode", post(control::mode))
        .route("/__mock/reset", post(control::reset));

    api.merge(control)
        .layer(from_fn_with_state(shared.clone(), intake::intake))
        .with_state(shared)
}

async fn not_found(method: Method, uri: Uri) -> Response {
    ApiError::no_endpoint(method.as_str(), uri.path()).into_response()
}
