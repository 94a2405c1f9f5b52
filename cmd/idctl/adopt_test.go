package main

import (
	"fmt"
	"math"
	"net"
	"strings"
	"testing"
	"time"
)

func TestAdoptTableSpecs(t *testing.T) {
	for _, c := range []struct {
		spec string
		want adoptTable
	}{
		{"orders.id=hilo", adoptTable{table: "orders", column: "id", kind: kindHiLo, name: "orders"}},
		{"shop.invoices.no=identity:bills", adoptTable{schema: "shop", table: "invoices", column: "no", kind: kindIdentity, name: "bills"}},
		{`"Odd Name".id=identity:x`, adoptTable{table: `"Odd Name"`, column: "id", kind: kindIdentity, name: "x"}},
	} {
		got, err := parseAdoptTable(c.spec)
		if err != nil || got != c.want {
			t.Errorf("parseAdoptTable(%q) = %+v, %v; want %+v", c.spec, got, err, c.want)
		}
	}
	for _, bad := range []string{"orders", "orders=hilo", "a.b.c.d=hilo", "orders.=hilo", "orders.id=sequence", "orders.id=hilo:", "orders.id=identity:a|b", "or\nders.id=hilo"} {
		if got, err := parseAdoptTable(bad); err == nil {
			t.Errorf("parseAdoptTable(%q) = %+v; want a refusal", bad, got)
		}
	}
	var f tablesFlag
	if err := f.Set("orders.id=hilo"); err != nil {
		t.Fatal(err)
	}
	if err := f.Set("orders.id=identity"); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("the same column twice: %v; want a refusal", err)
	}
}

func TestStringKeysFollowTheCollectionsForm(t *testing.T) {
	for _, c := range []struct {
		kind    counterKind
		keys    []string
		largest int64
		refused string // in the refusal; "" for none
	}{
		{kindHiLo, []string{"orders/9-A", "Orders/120-B", "orders/33-A"}, 120, ""},
		{kindIdentity, []string{"orders/9", "orders/10"}, 10, ""},
		{kindHiLo, nil, 0, ""},
		{kindHiLo, []string{"orders/9-A", "orders/10"}, 0, "mixed"},
		{kindIdentity, []string{"orders/9", "orders/10-A"}, 0, "mixed"},
		{kindHiLo, []string{"orders/9", "orders/10"}, 0, "adopt it as identity"},
		{kindIdentity, []string{"orders/9-A"}, 0, "adopt it as hilo"},
		{kindHiLo, []string{"orders/9-A", "invoices/10-A"}, 0, `collection "invoices"`},
		{kindHiLo, []string{"orders/0000000000000000001-A"}, 0, "not an ID"},
		{kindIdentity, []string{"orders/99999999999999999999"}, 0, "not an ID"},
		{kindHiLo, []string{"hello"}, 0, "not an ID"},
		{kindIdentity, []string{"orders/1", "x\x00y"}, 0, `"x\x00y"`},
	} {
		k := &stringKeys{kind: c.kind, name: "orders", sep: '/'}
		for _, key := range c.keys {
			k.add(key)
		}
		err := k.err(adoptTable{table: "orders", column: "id", kind: c.kind, name: "orders"})
		switch {
		case c.refused == "":
			if n, _ := k.largest(); err != nil || n != c.largest {
				t.Errorf("%s %q: largest %d, %v; want %d", c.kind, c.keys, n, err, c.largest)
			}
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused) || !strings.HasPrefix(err.Error(), "orders.id: ")):
			t.Errorf("%s %q: %v; want a refusal naming orders.id and saying %q", c.kind, c.keys, err, c.refused)
		}
	}
}

func TestAdoptMargin(t *testing.T) {
	for _, c := range []struct {
		n      int64
		margin string
		want   int64
		fits   bool
	}{
		{120, "1000", 1120, true},
		{120, "10%", 132, true},
		{121, "10%", 134, true}, // 12.1 rounds up
		{0, "5+10%", 5, true},
		{math.MaxInt64 - 1, "1", math.MaxInt64, true},
		{math.MaxInt64 - 1, "2", 0, false},
		{math.MaxInt64 / 2, "200%", 0, false},
	} {
		var m marginFlag
		if err := m.Set(c.margin); err != nil {
			t.Fatal(err)
		}
		got, fits := addMargin(c.n, m)
		if fits != c.fits || fits && got != c.want {
			t.Errorf("addMargin(%d, %s) = %d, %v; want %d, %v", c.n, c.margin, got, fits, c.want, c.fits)
		}
	}
}

func TestAdoptRefusesBadUsageBeforeReadingAnything(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"adopt"}, "at least one --table"},
		{[]string{"adopt", "--table", "orders.id=sequence"}, "identity or hilo"},
		{[]string{"adopt", "--table", "orders.id=hilo", "--separator", "//"}, "one character"},
		{[]string{"adopt", "--table", "orders.id=hilo:orders/"}, "separator"},
		{[]string{"adopt", "--table", "orders.id=hilo", "--margin", "-5"}, "negative"},
		{[]string{"adopt", "--table", "orders.id=hilo", "--read-timeout", "0s"}, "--read-timeout"},
		{[]string{"adopt", "--table", "orders.id=hilo", "--pg", "postgres://a@b/c", "--mysql", "mysql://a@b/c"}, "one database at a time"},
		{[]string{"adopt", "--table", "orders.id=hilo", "--mysql", "mysql://app:secret@db:x/shop"}, "--mysql"},
		{[]string{"adopt", "--table", "orders.id=hilo", "--mysql", "app:secret@db/shop"}, "the Go driver's"},
		{[]string{"adopt", "--table", "orders.id=hilo", "--mysql", "mysql://app@db/"}, "--table orders.id: name its database"},
	} {
		code, _, errOut := runIdctl(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.msg) {
			t.Errorf("idctl %q: exit %d, %q; want exit %d mentioning %q", c.args, code, errOut, exitUsage, c.msg)
		}
	}
}

// A database that accepts the connection and never answers holds adopt no longer than
// --read-timeout, and nothing is asked of the cluster (--addr has nothing behind it).
func TestAdoptGivesUpOnASilentDatabase(t *testing.T) {
	for _, c := range []struct{ flag, dsn, name string }{
		{"--pg", "postgres://app@%s/shop?sslmode=disable", "PostgreSQL"},
		{"--mysql", "mysql://app@%s/shop", "MySQL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr := silentServer(t)
			start := time.Now()
			code, _, errOut := runIdctl(t, "adopt", c.flag, fmt.Sprintf(c.dsn, addr),
				"--read-timeout", "300ms", "--addr", "127.0.0.1:1", "--table", "orders.id=hilo")
			if code != exitFail || !strings.Contains(errOut, c.name) {
				t.Errorf("adopt against a silent server: exit %d, %q; want exit %d naming %s", code, errOut, exitFail, c.name)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("adopt took %v with --read-timeout 300ms", took)
			}
		})
	}
}

// silentServer is the address of a listener that accepts connections and never answers them,
// until t ends.
func silentServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan []net.Conn)
	go func() {
		var conns []net.Conn // held open, unanswered, until the listener closes
		for {
			conn, err := ln.Accept()
			if err != nil {
				accepted <- conns
				return
			}
			conns = append(conns, conn)
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		for _, conn := range <-accepted {
			_ = conn.Close()
		}
	})
	return ln.Addr().String()
}

// Both forms of a MySQL connection string reach the same settings, the password coming from
// MYSQL_PWD only when the string has none, and a driver's refusal does not echo a password.
func TestMySQLConnectionStrings(t *testing.T) {
	t.Setenv(mysqlPasswordEnv, "from-env")
	for _, c := range []struct {
		dsn                    string
		user, passwd, addr, db string
		tls                    bool
	}{
		{"mysql://app:p%40ss@db.example:3307/shop", "app", "p@ss", "db.example:3307", "shop", false},
		{"mysql://app@127.0.0.1/shop?tls=true", "app", "from-env", "127.0.0.1:3306", "shop", true},
		{"mysql://app@[::1]/shop", "app", "from-env", "[::1]:3306", "shop", false},
		{"app:secret@tcp(127.0.0.1:3307)/shop", "app", "secret", "127.0.0.1:3307", "shop", false},
		{"app@tcp(127.0.0.1:3307)/", "app", "from-env", "127.0.0.1:3307", "", false},
	} {
		cfg, err := mysqlConfig(c.dsn)
		if err != nil {
			t.Errorf("mysqlConfig(%q): %v", c.dsn, err)
			continue
		}
		if cfg.User != c.user || cfg.Passwd != c.passwd || cfg.Addr != c.addr || cfg.DBName != c.db || (cfg.TLS != nil) != c.tls || cfg.Net != "tcp" {
			t.Errorf("mysqlConfig(%q) = user %q password %q addr %q db %q tls %v; want %q %q %q %q %v",
				c.dsn, cfg.User, cfg.Passwd, cfg.Addr, cfg.DBName, cfg.TLS != nil, c.user, c.passwd, c.addr, c.db, c.tls)
		}
	}
	for _, bad := range []string{"mysql://app:secret@/shop", "mysql://app:secret@db:x/shop", "mysql://app:secret@db/shop/more", "mysql://app:secret@db/shop?tls=maybe",
		"app:secret@db/shop", "postgres://app:secret@db/shop"} {
		if cfg, err := mysqlConfig(bad); err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("mysqlConfig(%q) = %+v, %v; want a refusal without the password", bad, cfg, err)
		}
	}
}
