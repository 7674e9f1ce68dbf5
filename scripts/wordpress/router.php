<?php
// Router for PHP's built-in web server (`php -S … router.php`), standing in for Apache's
// mod_rewrite rules: WordPress's own files are served from the document root, /wp-content/
// from the state folder's WP_CONTENT_DIR, and every other path goes to index.php so that
// pretty permalinks and /wp-json/ work.
// The environment of `php -S` (set by wordpress.sh) carries WORDPRESS_ABSPATH and WP_CONTENT_DIR.

// ABSPATH is the site's folder in the state folder (the package's files linked, our own wp-config.php):
// defined before WordPress loads, wp-load.php takes it and requires that wp-config.php.
define('ABSPATH', rtrim((string) getenv('WORDPRESS_ABSPATH'), '/') . '/');

$documentRoot = rtrim($_SERVER['DOCUMENT_ROOT'], '/');
$contentDir = rtrim((string) getenv('WP_CONTENT_DIR'), '/');
$path = rawurldecode((string) parse_url($_SERVER['REQUEST_URI'] ?? '/', PHP_URL_PATH));

// Never let a path climb out of the folders it is mapped to.
if ($path === '' || str_contains($path, "\0") || preg_match('#(^|/)\.\.(/|$)#', $path)) {
    http_response_code(400);
    header('Content-Type: text/plain');
    echo "Bad request path\n";
    return true;
}

if (str_starts_with($path, '/wp-content/')) {
    $file = $contentDir . substr($path, strlen('/wp-content'));
    // Uploaded or plugin PHP files are never executed from the content folder.
    if (!is_file($file) || preg_match('/\.(php\d?|phtml|phar)$/i', $file)) {
        http_response_code(404);
        header('Content-Type: text/plain');
        echo "Not found\n";
        return true;
    }
    router_serve_static_file($file);
    return true;
}

$script = $documentRoot . $path;
$scriptName = $path;
if (is_dir($script) && is_file(rtrim($script, '/') . '/index.php')) {
    $script = rtrim($script, '/') . '/index.php';
    $scriptName = rtrim($path, '/') . '/index.php';
}
if (is_file($script) && !str_ends_with($script, '.php')) {
    return false; // the built-in server sends static core files (wp-includes/js/…) itself
}
if (!is_file($script)) {
    $script = $documentRoot . '/index.php';
    $scriptName = '/index.php';
}
$_SERVER['SCRIPT_FILENAME'] = $script;
$_SERVER['SCRIPT_NAME'] = $scriptName;
$_SERVER['PHP_SELF'] = $scriptName;
chdir(dirname($script));
unset($documentRoot, $contentDir, $path, $scriptName);
// WordPress expects to run in the global scope, so it is required here and not from a function.
require $script;
return true;

function router_serve_static_file(string $file): void
{
    static $types = [
        'css' => 'text/css', 'js' => 'application/javascript', 'json' => 'application/json',
        'png' => 'image/png', 'jpg' => 'image/jpeg', 'jpeg' => 'image/jpeg', 'gif' => 'image/gif',
        'webp' => 'image/webp', 'svg' => 'image/svg+xml', 'ico' => 'image/x-icon',
        'woff' => 'font/woff', 'woff2' => 'font/woff2', 'ttf' => 'font/ttf', 'txt' => 'text/plain',
        'html' => 'text/html', 'pdf' => 'application/pdf', 'mp4' => 'video/mp4', 'mp3' => 'audio/mpeg',
    ];
    $extension = strtolower(pathinfo($file, PATHINFO_EXTENSION));
    header('Content-Type: ' . ($types[$extension] ?? 'application/octet-stream'));
    header('Content-Length: ' . filesize($file));
    header('Last-Modified: ' . gmdate('D, d M Y H:i:s', filemtime($file)) . ' GMT');
    if (($_SERVER['REQUEST_METHOD'] ?? 'GET') !== 'HEAD') {
        readfile($file);
    }
}
