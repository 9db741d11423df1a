#include "proof/vm/qemu.h"

#include <sys/wait.h>
#include <unistd.h>

#include "proof/child.h"
#include "proof/observer.h"

namespace outpost::torture::vm {
namespace {

std::string joined(const std::vector<std::string>& words) {
    std::string out;
    for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
    return out;
}

std::vector<std::string> qemu_args(const VmBoot& boot) {
    std::vector<std::string> kernel_args = {"console=ttyAMA0", "quiet", "loglevel=4", "panic=-1"};
    kernel_args.insert(kernel_args.end(), boot.kernel_args.begin(), boot.kernel_args.end());
    std::vector<std::string> args = {
        "qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a72", "-smp", "2", "-m", "1024",
        "-nographic", "-no-reboot", "-serial", "file:" + boot.console_path, "-monitor", "none",
        "-kernel", boot.images.kernel, "-initrd", boot.images.initramfs, "-append",
        joined(kernel_args),
        // The evidence channel.
        "-device", "virtio-serial-pci", "-chardev", "file,id=outpost,path=" + boot.channel_path,
        "-device", "virtserialport,chardev=outpost,name=outpost"};
    if (boot.network) {
        args.insert(args.end(),
                    {"-netdev", "user,id=net0", "-device", "virtio-net-pci,netdev=net0,romfile="});
    } else {
        args.insert(args.end(), {"-nic", "none"});
    }
    int index = 0;
    for (const VmDisk& disk : boot.disks) {
        const std::string node = "disk" + std::to_string(index++);
        args.insert(args.end(), {"-blockdev", "driver=file,node-name=" + node + "-data,filename=" +
                                                  disk.image + ",cache.no-flush=on"});
        std::string top = node + "-data";
        if (!disk.log_path.empty()) {
            args.insert(args.end(), {"-blockdev",
                                     "driver=file,node-name=" + node +
                                         "-log,filename=" + disk.log_path + ",cache.no-flush=on",
                                     "-blockdev",
                                     "driver=blklogwrites,node-name=" + node + ",file=" + node +
                                         "-data,log=" + node + "-log,log-sector-size=512"});
            top = node;
        }
        args.insert(args.end(), {"-device", "virtio-blk-pci,drive=" + top +
                                                ",serial=" + disk.serial + ",write-cache=on"});
    }
    return args;
}

}  // namespace

std::optional<VmImages> VmImages::in(const std::string& dir, std::string* error) {
    VmImages images{dir + "/vmlinuz", dir + "/initramfs.gz"};
    for (const std::string* path : {&images.kernel, &images.initramfs}) {
        if (::access(path->c_str(), R_OK) != 0) {
            *error = "no " + *path + ": build the VM with scripts/gateway-vm/build";
            return std::nullopt;
        }
    }
    return images;
}

VmExit boot(const VmBoot& boot) {
    VmExit exit;
    const auto start = std::chrono::steady_clock::now();
    ::unlink(boot.channel_path.c_str());
    ::unlink(boot.console_path.c_str());
    std::vector<std::string> args = qemu_args(boot);
    args[0] = find_program(args[0]);
    if (args[0].empty()) {
        exit.error = "qemu-system-aarch64 not found (scripts/setup --vm)";
        return exit;
    }
    auto qemu = LoggedProcess::spawn(args, boot.console_path + ".qemu", &exit.error);
    if (!qemu) return exit;
    const bool ended = poll_until([&] { return !qemu->running(); }, boot.limit);
    exit.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!ended) {
        exit.error = "the VM did not power off within " + std::to_string(boot.limit.count()) +
                     " s (console: " + boot.console_path + ")";
    } else if (!WIFEXITED(qemu->wait_status()) || WEXITSTATUS(qemu->wait_status()) != 0) {
        exit.error = "qemu failed: " + qemu->log();
    } else {
        exit.powered_off = true;
    }
    return exit;
}

}  // namespace outpost::torture::vm
