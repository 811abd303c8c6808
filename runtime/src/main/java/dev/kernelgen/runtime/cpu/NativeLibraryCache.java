package dev.kernelgen.runtime.cpu;

import dev.kernelgen.runtime.DeviceException;
import dev.kernelgen.runtime.backend.Sha256;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileOwnerAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * Extracts embedded shared libraries to a private per-user directory, to files named by their
 * content's SHA-256, so that a library is written once per user and machine and every process loads
 * the same file.
 *
 * <p>The directory is the system property {@value #DIR_PROPERTY} if set, else {@code
 * $XDG_CACHE_HOME/kernelgen} or {@code ~/.cache/kernelgen}, and {@code
 * ${java.io.tmpdir}/kernelgen-<user>} when that one cannot be written (a read-only or full home).
 * It is created with mode 0700, and used only while it is a real directory (not a symbolic link),
 * owned by this user and writable by nobody else; otherwise extraction fails with a {@link
 * DeviceException} that names the directory and the problem.
 *
 * <p>A library is first checked against the SHA-256 the launcher was built with, then written to a
 * temporary file in that directory, forced to disk and renamed atomically over the final name, so
 * that concurrent extractions (threads or processes) all end with one complete file. A file already
 * there is re-hashed, opened without following links, before it is handed out: a damaged or
 * tampered file is replaced, a symbolic link in its place refused. On file systems without POSIX
 * permissions (Windows) only the owner and the links are checked, not the ACLs.
 */
public final class NativeLibraryCache {
  /** System property naming the cache directory. */
  public static final String DIR_PROPERTY = "kernelgen.cache.dir";

  private static final Set<PosixFilePermission> PRIVATE =
      PosixFilePermissions.fromString("rwx------");

  private final List<Path> directories;

  /** A cache in {@code directory} alone. */
  public NativeLibraryCache(Path directory) {
    this(List.of(directory));
  }

  /** A cache in the first of {@code directories} that can be written, in order. */
  NativeLibraryCache(List<Path> directories) {
    if (directories.isEmpty()) {
      throw new IllegalArgumentException("no cache directory");
    }
    this.directories = List.copyOf(directories);
  }

  /** The cache at the default location (see the class comment). */
  public static NativeLibraryCache standard() {
    String configured = System.getProperty(DIR_PROPERTY);
    if (configured != null && !configured.isBlank()) {
      return new NativeLibraryCache(Path.of(configured));
    }
    List<Path> dirs = new ArrayList<>();
    String xdg = System.getenv("XDG_CACHE_HOME");
    if (xdg != null && Path.of(xdg).isAbsolute()) {
      dirs.add(Path.of(xdg, "kernelgen"));
    } else {
      String home = System.getProperty("user.home");
      if (home != null && !home.isBlank() && !home.equals("?")) {
        dirs.add(Path.of(home, ".cache", "kernelgen"));
      }
    }
    String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
    dirs.add(Path.of(System.getProperty("java.io.tmpdir"), "kernelgen-" + user));
    return new NativeLibraryCache(dirs);
  }

  /** The directory libraries go to first. */
  public Path directory() {
    return directories.getFirst();
  }

  /** The file holding {@code library}, checked against its own hash (for tests and tools). */
  public Path extract(byte[] library) {
    return extract(library, sha256(library));
  }

  /**
   * The file holding {@code library}, written if it is not there yet or was changed, and re-hashed
   * just before it is returned.
   *
   * @param expectedSha256 the hash the build recorded for the library
   * @throws DeviceException when the library does not have that hash, when the directory is not
   *     private, when a symbolic link stands in place of the file, or when no directory can be
   *     written (naming each and why)
   */
  public Path extract(byte[] library, String expectedSha256) {
    String digest = sha256(library);
    if (!digest.equalsIgnoreCase(expectedSha256)) {
      throw new DeviceException(
          "embedded kernel library is damaged: its SHA-256 is "
              + digest
              + ", the launcher was built with "
              + expectedSha256);
    }
    List<String> failures = new ArrayList<>();
    for (Path dir : directories) {
      try {
        checkPrivate(dir);
        return place(dir, library, digest);
      } catch (IOException | SecurityException e) {
        failures.add(dir + ": " + describe(e));
      }
    }
    throw new DeviceException(
        "cannot write the kernel library cache ("
            + String.join("; ", failures)
            + "); set -D"
            + DIR_PROPERTY
            + " to a writable directory of this user");
  }

  /** Creates {@code dir} with mode 0700 if missing; refuses it unless it is this user's alone. */
  static void checkPrivate(Path dir) throws IOException {
    boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      Path parent = dir.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      try {
        if (posix) {
          Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE));
        } else {
          Files.createDirectory(dir);
        }
      } catch (FileAlreadyExistsException e) {
        // Created by another thread or process meanwhile: checked below like any other.
      }
    }
    BasicFileAttributes a =
        Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (a.isSymbolicLink()) {
      throw new DeviceException(
          "kernel library cache " + dir + " is a symbolic link; refusing to use it");
    }
    if (!a.isDirectory()) {
      throw new DeviceException("kernel library cache " + dir + " is not a directory");
    }
    UserPrincipal owner =
        Files.getFileAttributeView(dir, FileOwnerAttributeView.class, LinkOption.NOFOLLOW_LINKS)
            .getOwner();
    UserPrincipal me = currentUser(dir);
    if (me != null && !owner.equals(me)) {
      throw new DeviceException(
          "kernel library cache "
              + dir
              + " is owned by "
              + owner.getName()
              + ", not by this user ("
              + me.getName()
              + "); refusing to load libraries from it");
    }
    if (posix) {
      Set<PosixFilePermission> perms =
          Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
              .permissions();
      if (perms.contains(PosixFilePermission.GROUP_WRITE)
          || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
        throw new DeviceException(
            "kernel library cache "
                + dir
                + " is writable by other users (mode "
                + PosixFilePermissions.toString(perms)
                + "); refusing to load libraries from it (make it private: chmod 700 "
                + dir
                + ")");
      }
    }
  }

  private static UserPrincipal currentUser(Path dir) {
    try {
      return dir.getFileSystem()
          .getUserPrincipalLookupService()
          .lookupPrincipalByName(System.getProperty("user.name"));
    } catch (IOException | UnsupportedOperationException e) {
      return null; // no lookup service: the owner cannot be checked
    }
  }

  private static Path place(Path dir, byte[] library, String digest) throws IOException {
    Path target = dir.resolve(digest + librarySuffix());
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      refuseLink(target);
      if (digest.equals(hashNoFollow(target))) {
        return target;
      }
      // Damaged or tampered with: replaced below.
    }
    Path temp = Files.createTempFile(dir, digest + "-", ".tmp");
    try {
      try (FileChannel ch =
          FileChannel.open(temp, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
        ByteBuffer b = ByteBuffer.wrap(library);
        while (b.hasRemaining()) {
          ch.write(b);
        }
        ch.force(true);
      }
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
    refuseLink(target);
    String now = hashNoFollow(target);
    if (!digest.equals(now)) {
      throw new DeviceException(
          "kernel library " + target + " changed while it was written (SHA-256 " + now + ")");
    }
    return target;
  }

  private static void refuseLink(Path file) throws IOException {
    if (Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
        .isSymbolicLink()) {
      throw new DeviceException(
          "kernel library " + file + " is a symbolic link; refusing to load it (remove it)");
    }
  }

  /** The SHA-256 of a file opened without following a symbolic link. */
  static String hashNoFollow(Path file) throws IOException {
    MessageDigest md = sha256();
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      ByteBuffer b = ByteBuffer.allocate(1 << 16);
      while (ch.read(b) >= 0) {
        b.flip();
        md.update(b);
        b.clear();
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private static String describe(Exception e) {
    String m = e.getMessage();
    return e.getClass().getSimpleName() + (m == null ? "" : " " + m);
  }

  static String sha256(byte[] bytes) {
    return Sha256.of(bytes);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }

  /** {@code .so}, {@code .dylib} or {@code .dll}: what the platform's loader expects. */
  static String librarySuffix() {
    String mapped = System.mapLibraryName("x");
    return mapped.substring(mapped.lastIndexOf('.'));
  }
}
