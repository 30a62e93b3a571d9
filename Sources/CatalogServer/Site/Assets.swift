import Foundation
import Hummingbird

/// The files compiled into the server (`Assets/`, embedded by the package): the pages' templates, their
/// style sheet and script, and the API's OpenAPI document. Nothing is read from disk or fetched at run time.
enum Assets {
    /// Each page's Mustache template by name; every page extends `layout`.
    static let templates: [String: [UInt8]] = [
        "layout": PackageResources.layout_mustache, "people": PackageResources.people_mustache,
        "person": PackageResources.person_mustache, "photos": PackageResources.photos_mustache,
        "photo": PackageResources.photo_mustache, "search": PackageResources.search_mustache,
        "duplicates": PackageResources.duplicates_mustache, "status": PackageResources.status_mustache,
        "sign-in": PackageResources.sign_in_mustache, "error": PackageResources.error_mustache,
        "pager": PackageResources.pager_mustache, "cleanup-runs": PackageResources.cleanup_runs_mustache,
    ]

    /// The static files under `/assets/`, with their media types.
    static let files: [String: (bytes: [UInt8], type: String)] = [
        "site.css": (PackageResources.site_css, "text/css; charset=utf-8"),
        "site.js": (PackageResources.site_js, "text/javascript; charset=utf-8"),
        "icon.svg": (PackageResources.icon_svg, "image/svg+xml"),
    ]

    /// The API's description, served at `/api/openapi.json`.
    static let openAPI = PackageResources.openapi_json
}
