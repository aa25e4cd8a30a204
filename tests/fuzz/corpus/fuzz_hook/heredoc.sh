cat <<-EOF > x.txt
	sudo ls
	EOF
echo "$(whoami) `id -u`" | tee out; FOO=1 env -i BAR=2 nice -n 5 rm -rf / # bye