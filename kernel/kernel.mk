# Guest-side programs of the kernel series' tests (tests/guest/kernel-*).
# The kernel's own selftests are built by vm/build-kernel and appear in
# the guest under /capuns/kselftests/.

KERNEL_BPF_SRC := tests/guest/kernel-bpf
KERNEL_OBJ     := $(B)/kernel
KERNEL_GUEST   := $(B)/guest/capuns

GUEST_FILES += $(KERNEL_GUEST)/tests/kernel-bpf-userns $(KERNEL_GUEST)/kernel/unsctl \
	       $(KERNEL_GUEST)/kernel/audit-set

# BPF objects: built for the BPF target against installed uapi headers;
# CO-RE relocates struct cred against the running kernel's BTF.
$(KERNEL_OBJ)/%.bpf.o: $(KERNEL_BPF_SRC)/%.bpf.c
	@mkdir -p $(@D)
	$(CLANG) -g -O2 -target bpf -Wall -Werror -I/usr/include/$(MULTIARCH) $(DEPFLAGS) -c $< -o $@

$(KERNEL_OBJ)/%.skel.h: $(KERNEL_OBJ)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $* >$@.tmp && mv $@.tmp $@

# The skeletons are generated: named here, as no .d file knows them yet.
$(KERNEL_GUEST)/tests/kernel-bpf-userns: $(KERNEL_BPF_SRC)/kernel-bpf-userns.c \
		$(KERNEL_OBJ)/userns_edit.skel.h $(KERNEL_OBJ)/userns_bad.skel.h \
		$(KERNEL_OBJ)/userns_walk.skel.h $(KERNEL_OBJ)/userns_ext_target.skel.h \
		$(KERNEL_OBJ)/userns_ext.skel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) $(DEPFLAGS) -I$(KERNEL_OBJ) $(LDFLAGS) -o $@ $< -lbpf

$(KERNEL_GUEST)/kernel/unsctl: tests/guest/kernel-tools/unsctl.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< -lcap

$(KERNEL_GUEST)/kernel/audit-set: tests/guest/kernel-tools/audit-set.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $<
