// Record the fixed traffic script with go-vcr 1.2.0 (Debian golang-github-dnaeon-go-vcr-dev)
// through net/http. usage: go run record_govcr.go BASE_URL OUT_FILE_WITHOUT_.yaml
// (go-vcr appends ".yaml" to the cassette name itself.)
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/dnaeon/go-vcr/recorder"
)

func main() {
	base, name := os.Args[1], os.Args[2]
	if _, err := os.Stat(name + ".yaml"); err == nil {
		fmt.Fprintln(os.Stderr, name+".yaml exists; refusing to overwrite")
		os.Exit(1)
	}
	r, err := recorder.New(name) // default mode: ModeRecording when the cassette is absent
	if err != nil {
		panic(err)
	}
	client := &http.Client{Transport: r} // default redirect policy: follows
	do := func(method, path string, body string, hdr ...string) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, base+path, rd)
		if err != nil {
			panic(err)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			panic(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(method, path, "->", resp.Request.URL.Path, resp.StatusCode, len(b), "bytes")
	}
	do("GET", "/users/1", "", "Authorization", "Bearer secret-token", "Accept", "application/json")
	do("GET", "/counter", "")
	do("GET", "/counter", "")
	do("GET", "/gzip", "", "Accept-Encoding", "gzip")
	do("GET", "/image.png", "")
	do("POST", "/login", `{"username":"ada","password":"lovelace"}`, "Content-Type", "application/json")
	do("GET", "/missing", "")
	do("GET", "/latin1", "")
	do("GET", "/redirect", "")
	do("POST", "/form", "a=1&b=two", "Content-Type", "application/x-www-form-urlencoded")
	if err := r.Stop(); err != nil {
		panic(err)
	}
	fmt.Println("written", name+".yaml")
}
