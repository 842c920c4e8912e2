<powershell>
Write-Host "Preparing the node"
New-Item -ItemType Directory -Force -Path 'C:\data'
</powershell>
