// A Go program that reaches leaseq through cgo and the C library of the release tarball: it adds
// an item, leases it, checks the data, completes it, and finds a second complete refused.
// integration-tests/dist/test.sh builds it with PKG_CONFIG_PATH pointing into the unpacked
// tarball and runs it with LD_LIBRARY_PATH there:
//
//	leaseq-go REDIS_URL QUEUE_PREFIX
package main

/*
#cgo pkg-config: leaseq
#include <stdlib.h>
#include <leaseq.h>
*/
import "C"

import (
	"bytes"
	"fmt"
	"os"
	"unsafe"
)

// check exits with leaseq's own explanation when a call did not return LEASEQ_OK.
func check(status C.leaseq_status, call string) {
	if status != C.LEASEQ_OK {
		fmt.Fprintf(os.Stderr, "%s: %s: %s\n", call, C.GoString(C.leaseq_status_str(status)),
			C.GoString(C.leaseq_last_error_message()))
		os.Exit(1)
	}
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: leaseq-go REDIS_URL QUEUE_PREFIX")
		os.Exit(2)
	}
	url := C.CString(os.Args[1])
	defer C.free(unsafe.Pointer(url))
	prefix := C.CString(os.Args[2])
	defer C.free(unsafe.Pointer(prefix))
	fmt.Printf("libleaseq %s\n", C.GoString(C.leaseq_version()))

	var client *C.leaseq_client
	check(C.leaseq_client_connect(url, &client), "leaseq_client_connect")
	defer C.leaseq_client_free(client)
	var queue *C.leaseq_queue
	check(C.leaseq_client_queue(client, prefix, &queue), "leaseq_client_queue")
	defer C.leaseq_queue_free(queue)

	// Go memory may be passed for the duration of a call: leaseq copies what it keeps.
	payload := []byte("hello from go\x00with a NUL")
	var item *C.leaseq_item
	check(C.leaseq_item_new((*C.uint8_t)(unsafe.Pointer(&payload[0])), C.size_t(len(payload)), &item),
		"leaseq_item_new")
	defer C.leaseq_item_free(item)
	var added C.bool
	check(C.leaseq_queue_add(queue, item, &added), "leaseq_queue_add")
	fmt.Printf("added: %v\n", bool(added))

	// Lease for 30 s, waiting up to 1 s.
	var lease *C.leaseq_lease
	check(C.leaseq_queue_lease(queue, 30000, 1000, &lease), "leaseq_queue_lease")
	if lease == nil {
		fmt.Fprintln(os.Stderr, "nothing to lease")
		os.Exit(1)
	}
	defer C.leaseq_lease_free(lease)
	var data *C.uint8_t
	var length C.size_t
	check(C.leaseq_lease_data(lease, &data, &length), "leaseq_lease_data")
	got := C.GoBytes(unsafe.Pointer(data), C.int(length))
	var count C.uint64_t
	check(C.leaseq_lease_count(lease, &count), "leaseq_lease_count")
	fmt.Printf("leased: %d bytes, attempt %d, data intact: %v\n", len(got), uint64(count),
		bytes.Equal(got, payload))

	var completed C.bool
	check(C.leaseq_queue_complete(queue, lease, &completed), "leaseq_queue_complete")
	fmt.Printf("completed: %v\n", bool(completed))
	check(C.leaseq_queue_complete(queue, lease, &completed), "leaseq_queue_complete")
	fmt.Printf("completed again: %v\n", bool(completed))
	var length2 C.uint64_t
	check(C.leaseq_queue_len(queue, &length2), "leaseq_queue_len")
	fmt.Printf("queue length: %d\n", uint64(length2))
}
